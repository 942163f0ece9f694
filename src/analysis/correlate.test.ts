import { test } from 'node:test';
import assert from 'node:assert/strict';
import { correlateXruns, lagWindowMs, normalizePcmId, phaseAt } from './correlate.js';

const MS = 1e6;
// Session starts at monotonic 100 s; the printk clock runs 2.5 ms behind CLOCK_MONOTONIC.
const START = 100_000 * MS;
const OFFSET = 2.5 * MS;
/** A kernel event at session time `ms`, expressed on the printk clock. */
const kev = (ms: number, pcm: string | null = 'pcmC0D0p:0', kind = 'xrun') => ({
  kind,
  pcm,
  time: (START + ms * MS - OFFSET) / 1e9,
});
const ux = (ms: number) => ({ monotonicNs: START + ms * MS });

test('normalizePcmId accepts the spellings of one stream', () => {
  assert.equal(normalizePcmId('pcmC0D0p'), 'C0D0p');
  assert.equal(normalizePcmId('pcmC1D3c:0'), 'C1D3c');
  assert.equal(normalizePcmId('card0/pcm0p'), 'C0D0p');
  assert.equal(normalizePcmId('/proc/asound/card2/pcm1p/xrun_debug'), 'C2D1p');
  assert.equal(normalizePcmId('plug:jack'), null);
  assert.equal(normalizePcmId(null), null);
});

test('phaseAt attributes times to phases, end exclusive except the last end', () => {
  const phases = [
    { name: 'idle', startMs: 0, endMs: 1000 },
    { name: 'write', startMs: 1000, endMs: 3000 },
  ];
  assert.equal(phaseAt(0, phases), 'idle');
  assert.equal(phaseAt(999.9, phases), 'idle');
  assert.equal(phaseAt(1000, phases), 'write');
  assert.equal(phaseAt(3000, phases), 'write');
  assert.equal(phaseAt(3001, phases), null);
  assert.equal(phaseAt(null, phases), null);
});

test('each xrun matches the kernel event just before it on the same PCM', () => {
  const r = correlateXruns({
    xruns: [ux(20), ux(45), ux(500)],
    // 0 and 25: dense pairs whose nearest-|lag| choice would cross (25 is 5 ms after 20).
    events: [kev(0), kev(25), kev(300, 'pcmC1D0p:0'), kev(400, null), kev(900)],
    pcm: 'pcmC0D0p',
    offsetNs: OFFSET,
    sessionStartNs: START,
    bufferMs: 2.67,
    phases: [
      { name: 'idle', startMs: 0, endMs: 100 },
      { name: 'write', startMs: 100, endMs: 1000 },
    ],
  });
  assert.deepEqual(
    r.pairs.map((p) => [p.xrun, p.event]),
    [
      [0, 0],
      [1, 1],
    ],
  );
  assert.ok(Math.abs(r.pairs[0]!.lagMs - 20) < 1e-6);
  assert.deepEqual(r.unmatchedXruns, [2], 'nothing in the kernel log near 500 ms: app was late');
  assert.deepEqual(r.unmatchedKernelEvents, [4]);
  assert.deepEqual(r.otherStreamEvents, [2]);
  assert.deepEqual(r.unknownStreamEvents, [3]);
  assert.deepEqual(r.xrunPhase, ['idle', 'idle', 'write']);
  assert.deepEqual(r.eventPhase, ['idle', 'idle', 'write', 'write', 'write']);
  assert.ok(Math.abs(r.eventSessionMs[4]! - 900) < 1e-6);
});

test('a kernel event slightly after the xrun (clock error) matches only when none precedes', () => {
  const win = lagWindowMs(2.67);
  const r = correlateXruns({
    xruns: [ux(100)],
    events: [kev(100 + win.afterMs - 1)],
    pcm: 'C0D0p',
    offsetNs: OFFSET,
    sessionStartNs: START,
    bufferMs: 2.67,
  });
  assert.equal(r.pairs.length, 1);
  assert.ok(r.pairs[0]!.lagMs < 0);
  const far = correlateXruns({
    xruns: [ux(100)],
    events: [kev(100 + win.afterMs + 1), kev(100 - win.beforeMs - 1)],
    pcm: 'C0D0p',
    offsetNs: OFFSET,
    sessionStartNs: START,
    bufferMs: 2.67,
  });
  assert.equal(far.pairs.length, 0, 'both outside the window');
  assert.deepEqual(far.unmatchedKernelEvents, [0, 1]);
});

test('without a kernel PCM (plug:jack) every kernel event is another stream', () => {
  const r = correlateXruns({
    xruns: [ux(10)],
    events: [kev(9)],
    pcm: 'plug:jack',
    offsetNs: OFFSET,
    sessionStartNs: START,
    bufferMs: 10,
  });
  assert.equal(r.pairs.length, 0);
  assert.deepEqual(r.otherStreamEvents, [0]);
  assert.deepEqual(r.unmatchedXruns, [0]);
});

test('without a clock offset nothing can be joined, but nothing is lost', () => {
  const r = correlateXruns({
    xruns: [ux(10)],
    events: [kev(9)],
    pcm: 'pcmC0D0p',
    offsetNs: null,
    sessionStartNs: START,
    bufferMs: 10,
  });
  assert.equal(r.pairs.length, 0);
  assert.deepEqual(r.eventSessionMs, [null]);
  assert.deepEqual(r.unmatchedKernelEvents, [0]);
});

test('a thousand interleaved xruns match one to one in order', () => {
  const xruns = [];
  const events = [];
  for (let i = 0; i < 1000; i++) {
    events.push(kev(i * 25));
    xruns.push(ux(i * 25 + 3 + (i % 7))); // detected 3..9 ms later
  }
  const r = correlateXruns({
    xruns,
    events,
    pcm: 'pcmC0D0p',
    offsetNs: OFFSET,
    sessionStartNs: START,
    bufferMs: 2.67,
  });
  assert.equal(r.pairs.length, 1000);
  assert.ok(r.pairs.every((p) => p.xrun === p.event));
});

test('kprobe events name no stream: unnamedPcmIsOurs matches them to our PCM', () => {
  const base = {
    xruns: [ux(10)],
    events: [kev(9, null)],
    pcm: 'pcmC0D0p',
    offsetNs: OFFSET,
    sessionStartNs: START,
    bufferMs: 10,
  };
  assert.deepEqual(correlateXruns(base).unknownStreamEvents, [0]);
  const r = correlateXruns({ ...base, unnamedPcmIsOurs: true });
  assert.equal(r.pairs.length, 1);
  assert.deepEqual(r.unknownStreamEvents, []);
});
