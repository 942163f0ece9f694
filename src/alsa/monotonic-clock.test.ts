// The writer's clock: CLOCK_MONOTONIC read through libc into a preallocated timespec, as exact
// integer Numbers relative to an origin, on the same clock as process.hrtime (and printk).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMonotonicClock } from './monotonic-clock.js';

test('readings are whole nanoseconds that never go backwards', () => {
  const clock = openMonotonicClock();
  const slots = new Float64Array(1);
  let last = -1;
  for (let i = 0; i < 1000; i++) {
    const a = clock.nowNs();
    clock.readNs(slots, 0);
    const b = slots[0]!;
    assert.ok(Number.isSafeInteger(a) && Number.isSafeInteger(b), `${a} ${b}`);
    assert.ok(a >= last && b >= a, `${last} ${a} ${b}`);
    last = b;
  }
});

test('origin + reading is CLOCK_MONOTONIC: it falls between two process.hrtime.bigint() calls', () => {
  const clock = openMonotonicClock();
  // The origin is the whole second the clock was opened in.
  assert.equal(clock.originNs % 1_000_000_000n, 0n);
  for (let i = 0; i < 100; i++) {
    const before = process.hrtime.bigint();
    const at = clock.originNs + BigInt(clock.nowNs());
    const after = process.hrtime.bigint();
    assert.ok(before <= at && at <= after, `${before} <= ${at} <= ${after}`);
  }
});

test('sleepNs sleeps at least as long as asked, and not at all for 0 or less', () => {
  const clock = openMonotonicClock();
  const late: number[] = [];
  for (let i = 0; i < 20; i++) {
    const deadline = clock.nowNs() + 2_000_000;
    clock.sleepNs(2_000_000);
    const woke = clock.nowNs();
    assert.ok(woke >= deadline, `woke ${deadline - woke} ns before the deadline`);
    late.push(woke - deadline);
  }
  // Lateness is scheduling, not a bug: only the median is bounded (generously, a loaded box).
  late.sort((a, b) => a - b);
  assert.ok(late[10]! < 20_000_000, `median lateness ${late[10]} ns`);
  const t0 = clock.nowNs();
  clock.sleepNs(-1_000_000);
  clock.sleepNs(0);
  assert.ok(clock.nowNs() - t0 < 5_000_000, 'no sleep for 0 or less');
  // Whole seconds go into tv_sec (tv_nsec must stay below 1e9 or the call fails at once).
  const t1 = clock.nowNs();
  clock.sleepNs(1_000_000_001);
  assert.ok(clock.nowNs() - t1 >= 1_000_000_001, 'a sleep over a second');
});
