import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTick, linearScale, niceStep, niceTicks } from './scale.js';

test('nice steps are 1, 2 or 5 × 10^k', () => {
  assert.equal(niceStep(100, 5), 20);
  assert.equal(niceStep(7, 5), 2);
  assert.equal(niceStep(0.3, 3), 0.1);
  assert.equal(niceStep(0), 1);
});

test('ticks start at 0 and end at the first nice value ≥ max', () => {
  assert.deepEqual(niceTicks(70.4, 8), [0, 10, 20, 30, 40, 50, 60, 70, 80]);
  assert.deepEqual(niceTicks(3, 5), [0, 1, 2, 3]);
  assert.deepEqual(niceTicks(1, 4, 1), [0, 1]);
  assert.deepEqual(niceTicks(0.25, 5), [0, 0.05, 0.1, 0.15, 0.2, 0.25]);
});

test('linear scales map and may run backwards; an empty domain maps to the middle', () => {
  const y = linearScale([0, 10], [100, 0]);
  assert.equal(y(0), 100);
  assert.equal(y(5), 50);
  assert.equal(linearScale([3, 3], [0, 10])(3), 5);
});

test('tick labels are short', () => {
  assert.equal(formatTick(1500), '1.5k');
  assert.equal(formatTick(2_000_000), '2M');
  assert.equal(formatTick(0.25), '0.25');
});
