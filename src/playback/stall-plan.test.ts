import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStallPlan, stallDueMs, stallPlanSpanMs } from './stall-plan.js';
import { UsageError } from '../errors.js';

test('MS and MSxCOUNT parse into a spaced plan', () => {
  assert.deepEqual(parseStallPlan('20x5'), {
    stallMs: 20,
    count: 5,
    warmupMs: 1000,
    intervalMs: 1000,
  });
  assert.deepEqual(parseStallPlan('20'), {
    stallMs: 20,
    count: 1,
    warmupMs: 1000,
    intervalMs: 1000,
  });
  assert.equal(parseStallPlan('20msx3').count, 3);
  // Long stalls are spaced four stalls apart so recovery never overlaps the next one.
  assert.equal(parseStallPlan('500x2').intervalMs, 2000);
});

test('stalls are due after the warm-up, one interval apart', () => {
  const p = parseStallPlan('20x5');
  assert.deepEqual(
    [0, 1, 4].map((i) => stallDueMs(p, i)),
    [1000, 2000, 5000],
  );
  assert.equal(stallPlanSpanMs(p), 6000);
});

test('bad text is a usage error that shows the expected form', () => {
  for (const bad of ['', 'x5', '20x', '-5', '0', '20x0', 'abc', '99999']) {
    assert.throws(
      () => parseStallPlan(bad),
      (e: unknown) => e instanceof UsageError && /MSxCOUNT|MS ≤/.test(e.message),
      bad,
    );
  }
});
