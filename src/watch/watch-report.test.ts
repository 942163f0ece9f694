import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SessionHostSummary } from '../session/events.js';
import { kernelReporting } from './hidden-xruns.js';
import { watchParams } from './run-watch.js';
import { attributeStream, rankWatch } from './watch-ranking.js';
import {
  buildWatchReport,
  renderWatchText,
  summarizeLoad,
  type WatchCollected,
} from './watch-report.js';
import { kernelEvent, stream, xrun } from './test-fixtures.js';
import { streamLabel } from './running-streams.js';

const host: SessionHostSummary = {
  kernelRelease: '6.1.192',
  kernelVersion: '#1 SMP PREEMPT_DYNAMIC',
  arch: 'x86_64',
  preempt: 'full',
  cpus: 2,
  threadirqs: false,
  xrunDebugAvailable: true,
};

function collected(
  over: Partial<WatchCollected> & Pick<WatchCollected, 'streams' | 'xruns'>,
): WatchCollected {
  const polled = new Map<string, number>();
  return {
    params: watchParams(
      { durationMs: null, untilXruns: null, mask: 3, capture: 'auto', outDir: null, scrub: true },
      over.streams,
    ),
    host,
    durationMs: 60_000,
    events: over.xruns.map((x) => x.event),
    ranking: rankWatch(over.streams, over.xruns, polled),
    capture: { source: 'kmsg', lostMessages: 0, pcm: 'pcmC0D0p', mask: 3 },
    clockAlignment: 'marker',
    offsetNs: 0,
    startNs: 5e9,
    pollMs: 250,
    stopReason: 'interrupted (Ctrl-C)',
    stopped: [],
    limitations: [],
    warnings: [],
    bundle: null,
    files: { bundle: null, events: null, kernelLog: null, report: null },
    ...over,
  };
}

test('xruns on the watched stream: counted as the report xruns, offender named, owner advice, exit 2', () => {
  const a = stream('pcmC0D0p', 'pipewire', 900);
  const evs = [
    kernelEvent('pcmC0D0p', 'kernel', '__filemap_add_folio'),
    kernelEvent('pcmC0D0p', 'kernel', '__filemap_add_folio'),
    kernelEvent('pcmC0D0p', 'kernel', 'ext4_writepages'),
    kernelEvent('pcmC3D0c', 'idle', null),
  ];
  const xs = evs.map((e, i) => xrun(i, attributeStream(e.pcm, [a]), e));
  xs[0]!.load = {
    loadavg: { one: 3, five: 1, fifteen: 1, running: 1, total: 1 },
    pressure: { cpu: 1, io: 30, memory: 0 },
    busiest: [{ pid: 5, comm: 'dd', cpuPct: 80, systemPct: 70 }],
    intervalMs: 1000,
  };
  xs[1]!.load = {
    loadavg: { one: 5, five: 1, fifteen: 1, running: 1, total: 1 },
    pressure: { cpu: 1, io: 50, memory: 0 },
    busiest: [
      { pid: 5, comm: 'dd', cpuPct: 60, systemPct: 50 },
      { pid: 6, comm: 'kworker/u4:2', cpuPct: 10, systemPct: 10 },
    ],
    intervalMs: 1000,
  };
  const { report, summary } = buildWatchReport(collected({ streams: [a], xruns: xs }));
  assert.equal(report.exitCode, 2);
  assert.equal(report.xruns.length, 3, 'the XRUNs of the watched stream, not the other stream');
  assert.deepEqual(
    report.xruns.map((x) => x.kernelEventIndex),
    [0, 1, 2],
  );
  assert.equal(report.correlation.matched, 3);
  assert.equal(report.correlation.otherStreamEvents, 1);
  assert.equal(report.offenders[0]?.function, '__filemap_add_folio');
  assert.match(
    report.conclusion[0]!,
    /^3 kernel XRUN\(s\) in 60 s of watching pcmC0D0p \(pipewire, pid 900\), period 1024 \/ buffer 2048 at 48000 Hz \(42\.7 ms\)\.$/,
  );
  assert.ok(report.conclusion.some((l) => /^Top offender: `__filemap_add_folio` in 67%/.test(l)));
  assert.ok(
    report.conclusion.some(
      (l) =>
        l ===
        'At the xruns: the busiest process was most often `dd` (at 2 of 2, 70% CPU on average); load average 4; 40% of the time tasks were stalled on IO (PSI).',
    ),
    report.conclusion.join('\n'),
  );
  assert.ok(
    report.suggestions.some((s) => /vm\.dirty_bytes/.test(s)),
    'the session advice for file-system offenders: ' + report.suggestions.join(' | '),
  );
  assert.ok(report.suggestions.some((s) => /clock\.force-quantum 2048/.test(s)));
  assert.ok(
    !report.suggestions.some((s) => /--period|--rt-priority/.test(s)),
    'no advice about options watch does not have',
  );
  assert.equal(summary.loadAtXruns.sampled, 2);
  const text = renderWatchText(report, summary);
  assert.match(
    text,
    /Streams watched\n {2}pcmC0D0p \(pipewire, pid 900\): 3 kernel XRUN\(s\), 0 underrun\(s\) in its counters/,
  );
  assert.match(text, / 1\. {2}67% {5}2 {2}__filemap_add_folio/);
});

test('an owner that hides underruns: the reason, the counters, and how to see the kernel side', () => {
  const a = stream('pcmC0D0p', 'pulseaudio', 700, 441, 88200);
  a.sw = { ...a.sw, stopThreshold: 2 ** 62, silenceSize: 2 ** 62 };
  a.kernel = kernelReporting(a.hw, a.sw);
  const c = collected({ streams: [a], xruns: [] });
  c.ranking = rankWatch([a], [], new Map([[streamLabel(a), 4]]));
  const { report, summary } = buildWatchReport(c);
  assert.equal(report.exitCode, 2, 'underruns in the counters are xruns too');
  assert.equal(summary.polledUnderruns, 4);
  const hidden = report.conclusion.find((l) =>
    l.startsWith('pcmC0D0p (pulseaudio, pid 700): its owner set stop_threshold'),
  );
  assert.ok(hidden, report.conclusion.join('\n'));
  assert.match(
    hidden,
    /Its own counters showed 4 underrun\(s\) \(status read every 250 ms; a lower bound/,
  );
  assert.ok(report.suggestions.some((s) => /xrunhunt session --device hw:0,0/.test(s)));
});

test('counters show underruns the kernel did not dump although it could have: said so', () => {
  const a = stream('pcmC0D0p', 'jackd', 650, 64, 128);
  const c = collected({ streams: [a], xruns: [] });
  c.ranking = rankWatch([a], [], new Map([[streamLabel(a), 2]]));
  const { report } = buildWatchReport(c);
  assert.ok(
    report.conclusion.some((l) =>
      /its counters showed 2 underrun\(s\) but the kernel printed no XRUN dump for it/.test(l),
    ),
  );
  assert.ok(report.suggestions.some((s) => /jackd with more frames per period \(-p 128\)/.test(s)));
});

test('nothing happened: no xruns, exit 0', () => {
  const a = stream('pcmC0D0p', 'aplay', 812, 256, 512);
  const { report } = buildWatchReport(collected({ streams: [a], xruns: [] }));
  assert.equal(report.exitCode, 0);
  assert.equal(
    report.conclusion[0],
    'No xruns in 60 s of watching pcmC0D0p (aplay, pid 812), period 256 / buffer 512 at 48000 Hz (10.7 ms).',
  );
  assert.deepEqual(summarizeLoad([]), {
    busiest: [],
    meanLoad1: null,
    meanPressure: null,
    sampled: 0,
  });
});
