// A session's bundle (format 2) carries what the report knows: each event's detection, the class
// detector-only unfolded, and the flight recorder's breakdowns attached to the XRUN events they
// explain (real breakdowns of the lab captures in test/fixtures/recorder/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { correlateXruns } from '../analysis/correlate.js';
import { fixtureExplanation } from '../bundle/breakdown-fixtures.js';
import type { BundleHost } from '../bundle/schema.js';
import { validateBundle } from '../bundle/validate.js';
import type { SessionKernelEvent, SessionParams } from './events.js';
import { buildSessionReport } from './report-build.js';
import { sessionToBundle } from './session-bundle.js';

const params: SessionParams = {
  device: 'hw:CARD=Dummy,DEV=0',
  rateHz: 48000,
  periodFrames: 64,
  periods: 2,
  phasePlan: 'write:20s',
  durationMs: null,
  mask: 3,
  capture: 'auto',
  loadDir: '/tmp/x',
  outDir: '/tmp/y',
  maxXruns: null,
  rtPriority: 80,
  cpu: null,
  injectStall: false,
  scrub: true,
};
const host: BundleHost = {
  kernelRelease: '6.1.192',
  kernelVersion: '#1 SMP PREEMPT_DYNAMIC',
  arch: 'x86_64',
  preempt: 'full',
  hz: 1000,
  configFlags: {},
  cards: [{ index: 0, id: 'Dummy', driver: 'snd_dummy', name: 'Dummy' }],
  cpus: 2,
  memBytes: 1 << 30,
  threadirqs: true,
};

// The recorder hits are at 8.572607 (blocked-by-task), 10.115265 (irq-latency), 8.750127
// (process detection) and 7.075998 s of CLOCK_MONOTONIC; the kernel log clock is 2 s behind.
const OFFSET_NS = 2e9;
const event = (time: number, cls: 'kernel' | 'detector-only'): SessionKernelEvent => ({
  kind: 'xrun',
  pcm: 'pcmC0D0p',
  time,
  sessionMs: null,
  phase: null,
  offender:
    cls === 'kernel'
      ? {
          class: 'kernel',
          function: 'test_unlock',
          module: 'test_lockup',
          signature: 'test_unlock [test_lockup]',
        }
      : { class: 'detector-only', function: null, module: null, signature: null },
  frames: ['snd_pcm_period_elapsed [snd_pcm]'],
  ...(cls === 'detector-only'
    ? {
        detection: {
          context: 'process' as const,
          task: { comm: 'pipewire', pid: 900 },
          via: 'snd_pcm_common_ioctl',
          evidence: 'stack' as const,
        },
      }
    : {}),
});

test('sessionToBundle carries detections, detector-only and the matched breakdowns; the bundle validates', () => {
  const events = [
    event(6.5726, 'kernel'),
    event(8.1153, 'kernel'),
    event(6.75013, 'detector-only'),
  ];
  const phases = [
    {
      name: 'write',
      kind: 'write',
      startMs: 0,
      endMs: 20_000,
      throughput: null,
      headroomSamplesUs: [],
    },
  ];
  const correlation = correlateXruns({
    xruns: [],
    events,
    pcm: 'pcmC0D0p',
    offsetNs: OFFSET_NS,
    sessionStartNs: 0,
    bufferMs: 2.67,
    phases,
  });
  const report = buildSessionReport({
    params,
    host: { ...host, xrunDebugAvailable: true },
    durationMs: 20_000,
    phases,
    xruns: [],
    capture: { source: 'kmsg', lostMessages: 0, pcm: 'pcmC0D0p', mask: 3 },
    events,
    offenders: [],
    correlation,
    clockAlignment: 'marker',
    offsetNs: OFFSET_NS,
    policy: 'SCHED_FIFO 80',
    bufferMs: 2.67,
    limitations: [],
    warnings: [],
    bundle: null,
    files: { bundle: null, events: null, kernelLog: null, report: null },
  });
  const explained = fixtureExplanation();
  report.recorder = {
    enabled: true,
    reason: 'asked',
    events: [],
    skipped: [],
    lines: 100,
    lost: 0,
    hits: 4,
    probeHits: 4,
    ringLost: 0,
    windowsKept: 4,
    windowsTruncated: 0,
    bytes: 1000,
    breakdown: explained,
  };
  const b = validateBundle(
    sessionToBundle({
      report,
      host,
      machineId: 'm1',
      toolVersion: '0.1.0',
      createdAt: new Date(0).toISOString(),
      frames: events.map((e) => e.frames),
      channels: 2,
      format: 'S16_LE',
      bufferFrames: 128,
      rtPolicy: 'SCHED_FIFO',
      rtPriority: 80,
      captureBackend: 'kprobe',
      playbackMs: 20_000,
      histograms: null,
      rulesVersion: '1',
      kernelOffsetNs: OFFSET_NS,
    }),
  );
  assert.deepEqual(
    b.events.map((e) => [e.offender.class, e.breakdown?.cls ?? null, e.detection?.context ?? null]),
    [
      ['kernel', 'blocked-by-task', null],
      ['kernel', 'irq-latency', null],
      ['detector-only', 'blocked-by-task', 'process'],
    ],
  );
  assert.equal(b.events[0]!.breakdown!.ts, 8.572607);
  assert.deepEqual(
    b.breakdown?.unmatched.map((u) => u.ts),
    [7.075998],
  );
  assert.equal(b.breakdown?.xruns, 4);
  // Without the clock offset nothing can be matched: all four stay in the run's list.
  const unaligned = validateBundle(
    sessionToBundle({
      report,
      host,
      machineId: 'm1',
      toolVersion: '0.1.0',
      createdAt: new Date(0).toISOString(),
      frames: events.map((e) => e.frames),
      channels: 2,
      format: 'S16_LE',
      bufferFrames: 128,
      rtPolicy: 'SCHED_FIFO',
      rtPriority: 80,
      captureBackend: 'kprobe',
      playbackMs: 20_000,
      histograms: null,
      rulesVersion: '1',
    }),
  );
  assert.equal(unaligned.breakdown?.unmatched.length, 4);
  assert.equal(unaligned.events.filter((e) => e.breakdown).length, 0);
});
