// The write loop against the MOCK PCM (a simulated device on a virtual clock): exact event
// sequences for clean runs, injected stalls, suspend, device loss and hard errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MockClock, MockPcm } from '../alsa/mock-pcm.js';
import type { GrantedParams } from '../alsa/pcm-binding.js';
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
const PERIOD_MS = (64 / 48000) * 1000;

interface Run {
  result: LoopResult;
  events: LoopEvent[];
  pcm: MockPcm;
}

function run(
  opts: {
    durationMs?: number;
    stalls?: StallPlan | null;
    onPeriod?: (n: number, pcm: MockPcm) => void;
    stopAfterPeriods?: number;
  } = {},
): Run {
  const clock = new MockClock();
  const pcm = new MockPcm({ clock, rate: 48000, periodFrames: 64, bufferFrames: 128 });
  const events: LoopEvent[] = [];
  let periods = 0;
  const buf = Buffer.alloc(64 * 4);
  const result = runWriteLoop(
    {
      granted,
      durationNs: Math.round((opts.durationMs ?? 1000) * 1e6),
      stalls: opts.stalls ?? null,
      statsIntervalNs: 1e9,
      waitTimeoutMs: 1000,
    },
    {
      pcm,
      clock,
      sleepMs: clock.sleepMs,
      shouldStop: () => opts.stopAfterPeriods !== undefined && periods >= opts.stopAfterPeriods,
      nextPeriod: () => {
        opts.onPeriod?.(periods, pcm);
        periods++;
        return buf;
      },
      emit: (e) => events.push(e),
    },
  );
  return { result, events, pcm };
}

test('a clean 1.5 s plays 1.5 s of frames with no xruns', () => {
  const { result, events, pcm } = run({ durationMs: 1500 });
  assert.equal(result.endReason, 'duration');
  assert.equal(result.xruns.length, 0);
  // Fill (128) + one period per 64 frames played: 72000 played in 1.5 s, ±1 period.
  assert.ok(Math.abs(result.frames - (72000 + 128)) <= 64, `frames ${result.frames}`);
  assert.deepEqual(pcm.calls.slice(0, 6), [
    'availUpdate=128',
    'writei(64)=64',
    'availUpdate=64',
    'writei(64)=64',
    'availUpdate=0',
    'wait=1',
  ]);
  // The writer always wrote with one period still queued: headroom = 64 frames = 1333 µs.
  assert.equal(result.headroomUs.minNonZeroValue, 1333);
  assert.equal(result.headroomUs.maxValue, 1333);
  assert.equal(events.filter((e) => e.type === 'stats').length, 1);
});

test('20 ms stalls x3 give exactly 3 xruns, each timed from the queue running dry', () => {
  const plan: StallPlan = { stallMs: 20, count: 3, warmupMs: 200, intervalMs: 200 };
  const { result, events, pcm } = run({ durationMs: 1000, stalls: plan });
  assert.equal(result.stallsInjected, 3);
  assert.equal(result.xruns.length, 3);
  const kinds = events.filter((e) => e.type === 'stall' || e.type === 'xrun').map((e) => e.type);
  assert.deepEqual(kinds, ['stall', 'xrun', 'stall', 'xrun', 'stall', 'xrun']);
  for (const x of result.xruns) {
    assert.equal(x.injected, true);
    assert.equal(x.detectedBy, 'snd_pcm_avail_update');
    assert.equal(x.startSource, 'trigger');
    // Silent from when the 128 queued frames ran out (2.67 ms into the stall) until the
    // refill restarted the stream right after the stall: 20 - 2.67 ms, plus two writes.
    assert.ok(x.durationMs >= 20 - BUFFER_MS - 0.01, `duration ${x.durationMs}`);
    assert.ok(x.durationMs <= 20 - BUFFER_MS + 0.1, `duration ${x.durationMs}`);
    assert.ok(x.monotonicNs >= x.startNs);
  }
  // Detected ~at the end of each stall: 200, 400, 600 ms after start, plus the stall.
  assert.deepEqual(
    result.xruns.map((x) => Math.round(x.ms / 10) * 10),
    [220, 420, 620],
  );
  // Recovery is snd_pcm_recover(-EPIPE) right after the failed call, then a refill.
  const i = pcm.calls.indexOf('availUpdate=-EPIPE');
  assert.deepEqual(pcm.calls.slice(i, i + 4), [
    'availUpdate=-EPIPE',
    'status=4',
    'recover(-EPIPE)=0',
    'availUpdate=128',
  ]);
  // Frames keep advancing after recovery: the last xrun is well before the end.
  assert.ok(result.frames > result.xruns[2]!.framesWritten + 48000 * 0.3);
});

test('stalls shorter than the buffer cause no xrun', () => {
  const plan: StallPlan = {
    stallMs: BUFFER_MS - PERIOD_MS - 0.2,
    count: 5,
    warmupMs: 100,
    intervalMs: 100,
  };
  const { result } = run({ durationMs: 700, stalls: plan });
  assert.equal(result.stallsInjected, 5);
  assert.equal(result.xruns.length, 0);
});

test('-ESTRPIPE (suspend) resumes, warns once, and playback continues without an xrun', () => {
  const { result, events, pcm } = run({
    durationMs: 500,
    onPeriod: (n, p) => {
      if (n === 100) p.suspend();
    },
  });
  assert.equal(result.endReason, 'duration');
  assert.equal(result.xruns.length, 0);
  const warnings = events.filter((e) => e.type === 'warning');
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]?.type === 'warning' && warnings[0].warning.code, 'suspended');
  const i = pcm.calls.findIndex((c) => c.endsWith('=-ESTRPIPE'));
  assert.ok(i > 0);
  assert.equal(pcm.calls[i + 1], 'resume=0');
  assert.ok(result.frames > 48000 * 0.4);
});

test('a resume that keeps failing falls back to prepare', () => {
  const { result, pcm } = run({
    durationMs: 300,
    onPeriod: (n, p) => {
      if (n === 50) {
        p.suspend();
        p.failNext('resume', -38);
      }
    },
  });
  assert.equal(result.endReason, 'duration');
  const i = pcm.calls.indexOf('resume=-errno 38');
  assert.ok(i > 0, pcm.calls.slice(0, 120).join(' '));
  assert.equal(pcm.calls[i + 1], 'prepare=0');
});

test('-ENODEV ends playback as device-gone with a message naming the device', () => {
  const { result } = run({
    durationMs: 1000,
    onPeriod: (n, p) => {
      if (n === 20) p.disconnect();
    },
  });
  assert.equal(result.endReason, 'device-gone');
  assert.equal(result.error?.errno, 19);
  assert.match(result.error?.message ?? '', /"mock" went away/);
  assert.ok(result.frames >= 20 * 64);
});

test('-EBADFD from recover after an xrun is also device-gone', () => {
  const { result } = run({
    durationMs: 1000,
    onPeriod: (n, p) => {
      if (n === 10) {
        p.failNext('availUpdate', -32);
        p.failNext('recover', -77);
      }
    },
  });
  assert.equal(result.endReason, 'device-gone');
  assert.equal(result.error?.op, 'snd_pcm_recover');
  // The xrun seen before the failure is still reported.
  assert.equal(result.xruns.length, 1);
});

test('-EIO from writei fails with the operation and errno', () => {
  const { result } = run({
    onPeriod: (n, p) => {
      if (n === 5) p.failNext('writei', -5);
    },
  });
  assert.equal(result.endReason, 'error');
  assert.deepEqual(
    { op: result.error?.op, errno: result.error?.errno },
    { op: 'snd_pcm_writei', errno: 5 },
  );
});

test('-EAGAIN from writei waits and retries', () => {
  const { result, pcm } = run({
    durationMs: 100,
    onPeriod: (n, p) => {
      if (n === 5) p.failNext('writei', -11);
    },
  });
  assert.equal(result.endReason, 'duration');
  assert.equal(result.xruns.length, 0);
  assert.ok(pcm.calls.includes('writei=-EAGAIN'));
});

test('a stop request ends the loop as stopped', () => {
  const { result } = run({ durationMs: 10_000, stopAfterPeriods: 30 });
  assert.equal(result.endReason, 'stopped');
  assert.equal(result.frames, 30 * 64);
});
