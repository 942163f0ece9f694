// The timer writer's pacing as numbers: the wake-up fill and the sleep from the queued frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TIMER_SLEEP_NS, timerPacing, timerSleepNs } from './timer-pacing.js';

test('the wake-up fill leaves one period of room, whatever the number of periods', () => {
  assert.equal(
    timerPacing({ rate: 48000, periodFrames: 256, bufferFrames: 512 }).wakeFillFrames,
    256,
  );
  assert.equal(
    timerPacing({ rate: 48000, periodFrames: 256, bufferFrames: 1024 }).wakeFillFrames,
    768,
  );
  assert.equal(timerPacing({ rate: 44100, periodFrames: 64, bufferFrames: 64 }).wakeFillFrames, 0);
});

test('impossible grants are refused with the numbers in the message', () => {
  assert.throws(
    () => timerPacing({ rate: 48000, periodFrames: 256, bufferFrames: 128 }),
    /buffer ≥ period.*period 256, buffer 128/,
  );
  assert.throws(() => timerPacing({ rate: 0, periodFrames: 64, bufferFrames: 128 }), /rate 0/);
});

test('a full buffer sleeps exactly one period; less queued sleeps less; room now sleeps 0', () => {
  const p = timerPacing({ rate: 48000, periodFrames: 256, bufferFrames: 512 });
  // 256 frames at 48 kHz = 5.333… ms, rounded up to whole ns so the writer never wakes early.
  assert.equal(timerSleepNs(p, 512), 5_333_334);
  assert.equal(timerSleepNs(p, 300), Math.ceil((44 * 1e9) / 48000));
  assert.equal(timerSleepNs(p, 257), Math.ceil(1e9 / 48000));
  assert.equal(timerSleepNs(p, 256), 0);
  assert.equal(timerSleepNs(p, 0), 0);
  assert.equal(timerSleepNs(p, -5), 0);
});

test('the sleep follows the rate and is capped so a stalled device is noticed', () => {
  const p44 = timerPacing({ rate: 44100, periodFrames: 441, bufferFrames: 882 });
  assert.equal(timerSleepNs(p44, 882), 10_000_000);
  const huge = timerPacing({ rate: 8000, periodFrames: 4000, bufferFrames: 8000 });
  assert.equal(timerSleepNs(huge, 8000), MAX_TIMER_SLEEP_NS);
  assert.equal(timerSleepNs(huge, NaN), 0);
});
