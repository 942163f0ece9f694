// The write loop in timer mode (`--wakeup timer`) against the MOCK PCM (a simulated device on a
// virtual clock): it never waits on the device, sleeps on the clock until a period should be
// free, asks snd_pcm_delay (where the kernel detects a timer-scheduled stream's underrun) and
// writes a period — with the same headroom as the period mode and no busy polling.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MockClock, MockPcm } from '../alsa/mock-pcm.js';
import type { GrantedParams, PcmBinding } from '../alsa/pcm-binding.js';
import { PCM_STATE } from '../alsa/pcm-binding.js';
import type { MonotonicClock } from '../alsa/monotonic-clock.js';
import { runWriteLoop } from './write-loop.js';
import type { LoopEvent, LoopResult } from './write-loop.js';
import type { StallPlan } from './stall-plan.js';

const granted: GrantedParams = {
  rate: 48000,
  channels: 2,
  format: 'S16_LE',
  periodFrames: 64,
  bufferFrames: 128,
  frameBytes: 4,
};
const BUFFER_MS = (128 / 48000) * 1000;

function run(opts: { durationMs: number; stalls?: StallPlan | null }): {
  result: LoopResult;
  events: LoopEvent[];
  pcm: MockPcm;
  sleeps: number[];
} {
  const clock = new MockClock();
  const pcm = new MockPcm({ clock, rate: 48000, periodFrames: 64, bufferFrames: 128 });
  const events: LoopEvent[] = [];
  const sleeps: number[] = [];
  const buf = Buffer.alloc(64 * 4);
  // The MOCK clock, recording every timer sleep of the loop before it moves the virtual time.
  const recording: MonotonicClock = {
    originNs: clock.originNs,
    nowNs: clock.nowNs,
    readNs: clock.readNs,
    sleepNs: (ns: number): void => {
      sleeps.push(ns);
      clock.sleepNs(ns);
    },
  };
  const result = runWriteLoop(
    {
      granted,
      durationNs: Math.round(opts.durationMs * 1e6),
      stalls: opts.stalls ?? null,
      statsIntervalNs: 1e9,
      waitTimeoutMs: 1000,
      wakeup: 'timer',
    },
    {
      pcm,
      clock: recording,
      sleepMs: clock.sleepMs,
      shouldStop: () => false,
      nextPeriod: () => buf,
      emit: (e) => events.push(e),
    },
  );
  return { result, events, pcm, sleeps };
}

test('timer mode: a clean 1.5 s plays in time, never calls snd_pcm_wait, and writes with one period queued', () => {
  const { result, pcm, sleeps } = run({ durationMs: 1500 });
  assert.equal(result.endReason, 'duration');
  assert.equal(result.xruns.length, 0);
  assert.ok(Math.abs(result.frames - (72000 + 128)) <= 64, `frames ${result.frames}`);
  assert.equal(pcm.calls.filter((c) => c.startsWith('wait')).length, 0);
  assert.deepEqual(pcm.calls.slice(0, 9), [
    'delay=0',
    'availUpdate=128',
    'writei(64)=64',
    'delay=64',
    'availUpdate=64',
    'writei(64)=64',
    'delay=128',
    'availUpdate=0',
    'delay=64',
  ]);
  // Same headroom as the period mode: the writer wrote with one period (1333 µs) still queued.
  assert.equal(result.headroomUs.minNonZeroValue, 1333);
  assert.equal(result.headroomUs.maxValue, 1333);
  // One sleep per period, each the time the queued excess takes to play: 64 frames (1.333 ms,
  // rounded up), or 63 once the MOCK's 2 µs write costs have let the pointer move a frame.
  const writes = pcm.calls.filter((c) => c.startsWith('writei')).length;
  assert.ok(Math.abs(sleeps.length - writes) <= 2, `${sleeps.length} sleeps, ${writes} writes`);
  assert.ok(
    sleeps.every((ns) => ns === 1_333_334 || ns === 1_312_500),
    `sleeps ${[...new Set(sleeps)].join(', ')}`,
  );
});

test('timer mode: 20 ms stalls x3 are exactly 3 xruns, detected in snd_pcm_delay, timed as in period mode', () => {
  const plan: StallPlan = { stallMs: 20, count: 3, warmupMs: 200, intervalMs: 200 };
  const { result, events, pcm } = run({ durationMs: 1000, stalls: plan });
  assert.equal(result.stallsInjected, 3);
  assert.equal(result.xruns.length, 3);
  const kinds = events.filter((e) => e.type === 'stall' || e.type === 'xrun').map((e) => e.type);
  assert.deepEqual(kinds, ['stall', 'xrun', 'stall', 'xrun', 'stall', 'xrun']);
  for (const x of result.xruns) {
    assert.equal(x.injected, true);
    assert.equal(x.detectedBy, 'snd_pcm_delay');
    assert.equal(x.startSource, 'trigger');
    assert.ok(x.durationMs >= 20 - BUFFER_MS - 0.01, `duration ${x.durationMs}`);
    assert.ok(x.durationMs <= 20 - BUFFER_MS + 0.1, `duration ${x.durationMs}`);
  }
  const i = pcm.calls.indexOf('delay=-EPIPE');
  assert.deepEqual(pcm.calls.slice(i, i + 5), [
    'delay=-EPIPE',
    'status=4',
    'recover(-EPIPE)=0',
    'delay=0',
    'availUpdate=128',
  ]);
  assert.ok(result.frames > result.xruns[2]!.framesWritten + 48000 * 0.3);
});

test('timer mode: a device that fails snd_pcm_delay with -ENODEV ends as device-gone', () => {
  const clock = new MockClock();
  const pcm = new MockPcm({ clock, rate: 48000, periodFrames: 64, bufferFrames: 128 });
  let n = 0;
  const result = runWriteLoop(
    {
      granted,
      durationNs: 1e9,
      stalls: null,
      statsIntervalNs: 1e9,
      waitTimeoutMs: 1000,
      wakeup: 'timer',
    },
    {
      pcm,
      clock,
      sleepMs: clock.sleepMs,
      shouldStop: () => false,
      nextPeriod: () => {
        if (++n === 50) pcm.failNext('delay', -19);
        return Buffer.alloc(256);
      },
      emit: () => undefined,
    },
  );
  assert.equal(result.endReason, 'device-gone');
  assert.equal(result.error?.op, 'snd_pcm_delay');
});

test('timer mode: a device whose position stops is warned about once, and the writer keeps sleeping a period at a time (no busy loop)', () => {
  const clock = new MockClock();
  // A MOCK device frozen while running: full buffer, no room ever, delay = the buffer.
  const frozen: PcmBinding = {
    device: 'frozen',
    availUpdate: () => 0,
    delay: () => 128,
    writei: () => -11,
    wait: () => 0,
    status: () => -5,
    recover: () => 0,
    resume: () => 0,
    prepare: () => 0,
    start: () => 0,
    state: () => PCM_STATE.RUNNING,
    drop: () => 0,
    close: () => undefined,
    strerror: (e) => `mock ${e}`,
  };
  const events: LoopEvent[] = [];
  let sleeps = 0;
  const result = runWriteLoop(
    {
      granted,
      durationNs: 2e9,
      stalls: null,
      statsIntervalNs: 1e9,
      waitTimeoutMs: 1000,
      wakeup: 'timer',
    },
    {
      pcm: frozen,
      clock: {
        originNs: clock.originNs,
        nowNs: clock.nowNs,
        readNs: clock.readNs,
        sleepNs: (ns) => {
          sleeps++;
          clock.sleepNs(ns);
        },
      },
      sleepMs: clock.sleepMs,
      shouldStop: () => false,
      nextPeriod: () => Buffer.alloc(256),
      emit: (e) => events.push(e),
    },
  );
  assert.equal(result.endReason, 'duration');
  const warnings = events.filter((e) => e.type === 'warning');
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!.type === 'warning' ? warnings[0]!.warning.message : '',
    /"frozen" played nothing for 1000 ms/,
  );
  // 2 s of one-period (1.333 ms) sleeps: 1500, not a spin.
  assert.ok(Math.abs(sleeps - 1500) <= 1, `${sleeps} sleeps`);
});
