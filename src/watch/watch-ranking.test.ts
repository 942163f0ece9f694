import { test } from 'node:test';
import assert from 'node:assert/strict';
import { streamLabel } from './running-streams.js';
import { kernelEvent, stream, xrun } from './test-fixtures.js';
import { attributeStream, rankWatch, renderRankingText, renderXrunLine } from './watch-ranking.js';

test('events are attributed by PCM name (any spelling), or to the only stream when the dump names none', () => {
  const a = stream('pcmC0D0p', 'pipewire', 900);
  const b = stream('pcmC1D0p', 'jackd', 950);
  assert.equal(attributeStream('pcmC1D0p', [a, b]), b);
  assert.equal(attributeStream('card1/pcm0p', [a, b]), b);
  assert.equal(attributeStream('pcmC2D0p', [a, b]), null);
  assert.equal(attributeStream(null, [a, b]), null, 'ambiguous with two streams');
  assert.equal(attributeStream(null, [a]), a);
});

test('ranking: xruns per stream and owner, offenders of watched streams only, class shares', () => {
  const a = stream('pcmC0D0p', 'pipewire', 900);
  const b = stream('pcmC1D0p', 'jackd', 950, 128, 256);
  const events = [
    kernelEvent('pcmC1D0p', 'kernel', '__filemap_add_folio'),
    kernelEvent('pcmC1D0p', 'kernel', '__filemap_add_folio'),
    kernelEvent('pcmC1D0p', 'idle', null),
    kernelEvent('pcmC0D0p', 'kernel', 'xhci_irq', 'xhci_hcd'),
    kernelEvent('pcmC5D0p', 'kernel', 'not_watched'),
  ];
  const xs = events.map((e, i) => xrun(i, attributeStream(e.pcm, [a, b]), e));
  const r = rankWatch([a, b], xs, new Map([[streamLabel(a), 3]]));
  assert.deepEqual(
    r.streams.map((s) => [s.label, s.xruns, s.polledUnderruns, s.periodFrames, s.bufferFrames]),
    [
      ['pcmC1D0p (jackd, pid 950)', 3, 0, 128, 256],
      ['pcmC0D0p (pipewire, pid 900)', 1, 3, 1024, 2048],
    ],
  );
  assert.equal(r.xruns, 4);
  assert.equal(r.otherEvents, 1);
  assert.deepEqual(
    r.offenders.map((o) => [o.function, o.count, Number(o.share.toFixed(3))]),
    [
      ['__filemap_add_folio', 2, 0.667],
      ['xhci_irq', 1, 0.333],
    ],
  );
  assert.deepEqual(r.classShares, { kernel: 0.75, idle: 0.25, user: 0, none: 0 });
  const text = renderRankingText(r, 12_345);
  assert.match(text, /^-- ranking after 12\.3s: 4 kernel XRUN\(s\) on watched streams\n/);
  assert.match(
    text,
    /pcmC1D0p \(jackd, pid 950\): 3 XRUN\(s\), 0 underrun\(s\) seen in its counters; period 128 \/ buffer 256 at 48000 Hz \(5\.3 ms\)/,
  );
  assert.match(text, /1\. __filemap_add_folio {2}2 \(67%\)/);
  assert.match(text, /interrupted: kernel 75%, idle 25%, user 0%, none 0%/);
  assert.match(text, /1 event\(s\) on streams not watched \(or naming no stream\)/);
});

test('one line per xrun: time, stream with owner, offender, load', () => {
  const a = stream('pcmC0D0p', 'aplay', 812);
  const x = xrun(3, a, kernelEvent('pcmC0D0p', 'kernel', 'test_unlock', 'test_lockup'));
  x.load = {
    loadavg: { one: 2.5, five: 1, fifteen: 1, running: 3, total: 90 },
    pressure: null,
    busiest: [{ pid: 77, comm: 'insmod', cpuPct: 60, systemPct: 60 }],
    intervalMs: 1000,
  };
  assert.equal(
    renderXrunLine(x),
    '1.0s XRUN pcmC0D0p (aplay, pid 812): test_unlock [test_lockup] · load 2.50 · busiest: insmod 60% (sys 60%)',
  );
  const idle = xrun(0, a, kernelEvent('pcmC0D0p', 'idle', null));
  assert.match(renderXrunLine(idle), /\(idle: the CPU was asleep\) · load unknown$/);
});
