import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeLoadEffect } from './load-effect.js';
import type { SessionKernelEvent } from './events.js';
import type { ReportPhase } from './report-model.js';

function phase(
  name: string,
  kind: string,
  startMs: number,
  endMs: number,
  xruns: number,
): ReportPhase {
  return {
    name,
    kind,
    startMs,
    endMs,
    xruns,
    xrunsPerMin: 0,
    kernelEvents: 0,
    throughput: null,
    headroom: null,
  };
}

function events(n: number, fn: string | null, phaseName: string): SessionKernelEvent[] {
  return Array.from({ length: n }, () => ({
    kind: 'xrun' as const,
    pcm: 'pcmC0D0p',
    time: null,
    sessionMs: null,
    phase: phaseName,
    offender: {
      class: fn === null ? ('idle' as const) : ('kernel' as const),
      function: fn,
      module: null,
      signature: fn,
    },
    frames: [],
  }));
}

// Ground truth: an emulator-noise offender at the same rate with and without load, and a
// culprit that only the load brings. The culprit must rank first, the noise not at all.
const phases = [
  phase('idle', 'idle', 0, 60_000, 40),
  phase('write', 'write', 60_000, 120_000, 90),
  phase('cpu', 'cpu', 120_000, 180_000, 41),
];
const evs = [
  ...events(30, 'p9_virtio_request', 'idle'),
  ...events(31, 'p9_virtio_request', 'write'),
  ...events(29, 'p9_virtio_request', 'cpu'),
  ...events(2, 'ext4_writepages', 'idle'),
  ...events(45, 'ext4_writepages', 'write'),
  ...events(10, null, 'idle'),
];

test('the offender the load brings ranks first; one as frequent without load is left out', () => {
  const fx = computeLoadEffect(phases, evs)!;
  assert.equal(fx.offenders.length, 1);
  const top = fx.offenders[0]!;
  assert.equal(top.function, 'ext4_writepages');
  assert.equal(top.kind, 'write');
  assert.equal(top.idleCount, 2);
  assert.equal(top.loadCount, 45);
  assert.equal(top.excessPerMin, 43);
  assert.ok(top.pValue < 1e-6);
  assert.equal(fx.baseline.kernelCodeEvents, 32);
});

test('per load kind: write raises the xrun rate significantly, cpu does not', () => {
  const fx = computeLoadEffect(phases, evs)!;
  const write = fx.phases.find((p) => p.kind === 'write')!;
  const cpu = fx.phases.find((p) => p.kind === 'cpu')!;
  assert.equal(fx.baseline.xrunsPerMin, 40);
  assert.equal(write.excessXrunsPerMin, 50);
  assert.equal(write.significant, true);
  assert.equal(cpu.significant, false);
  assert.equal(cpu.excessXrunsPerMin, 1);
});

test('two phases of one kind are one window; no idle phase means no baseline', () => {
  const split = [
    phase('idle', 'idle', 0, 60_000, 0),
    phase('write1', 'write', 60_000, 90_000, 3),
    phase('write2', 'write', 90_000, 120_000, 3),
  ];
  const fx = computeLoadEffect(split, [
    ...events(10, 'f', 'write1'),
    ...events(10, 'f', 'write2'),
  ])!;
  assert.deepEqual(fx.phases[0]!.phases, ['write1', 'write2']);
  assert.equal(fx.phases[0]!.xrunsPerMin, 6);
  assert.equal(fx.offenders[0]!.loadCount, 20);
  assert.equal(computeLoadEffect([phase('w', 'write', 0, 1000, 1)], []), null);
});
