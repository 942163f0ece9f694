import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createByteBudget } from './byte-budget.js';

test('a byte budget admits up to its limit and never goes negative', () => {
  const b = createByteBudget(10);
  assert.deepEqual([b.tryTake(6), b.tryTake(5), b.tryTake(4)], [true, false, true]);
  assert.equal(b.inUse(), 10);
  b.give(6);
  b.give(100);
  assert.equal(b.inUse(), 0);
});
