import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createUsHistogram, summarizeHistogram } from './latency-histogram.js';

test('an empty histogram summarises to nulls, not zeros', () => {
  assert.deepEqual(summarizeHistogram(createUsHistogram()), {
    count: 0,
    min: null,
    p50: null,
    p99: null,
    p999: null,
    max: null,
    mean: null,
  });
});

test('percentiles of 1..1000 µs', () => {
  const h = createUsHistogram();
  for (let v = 1; v <= 1000; v++) h.recordValue(v);
  const s = summarizeHistogram(h);
  assert.equal(s.count, 1000);
  assert.equal(s.min, 1);
  assert.equal(s.p50, 500);
  assert.equal(s.p99, 990);
  assert.equal(s.p999, 999);
  assert.equal(s.max, 1000);
});

test('a zero value counts and shows as min 0', () => {
  const h = createUsHistogram();
  h.recordValue(0);
  h.recordValue(5);
  assert.equal(summarizeHistogram(h).min, 0);
});
