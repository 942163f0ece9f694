import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRateLimiter, parseRateLimit } from './rate-limit.js';

test('parseRateLimit reads N/PERIOD forms', () => {
  assert.deepEqual(parseRateLimit('60/1m'), { count: 60, periodMs: 60_000 });
  assert.deepEqual(parseRateLimit('10/s'), { count: 10, periodMs: 1000 });
  assert.equal(parseRateLimit('fast'), null);
  assert.equal(parseRateLimit('0/s'), null);
});

test('a client gets its burst, then waits; others are independent', () => {
  const rl = createRateLimiter({ count: 3, periodMs: 3000 });
  const t = 1_000_000;
  assert.deepEqual(
    [1, 2, 3].map(() => rl.take('a', t).ok),
    [true, true, true],
  );
  const no = rl.take('a', t);
  assert.equal(no.ok, false);
  assert.equal(!no.ok && no.retryAfterMs, 1000);
  assert.equal(rl.take('b', t).ok, true);
  assert.equal(rl.take('a', t + 999).ok, false);
  assert.equal(rl.take('a', t + 2000).ok, true);
});

test('the client table stays bounded, forgetting the least recently seen', () => {
  const rl = createRateLimiter({ count: 1, periodMs: 60_000, maxClients: 100 });
  for (let i = 0; i < 10_000; i++) rl.take(`10.0.${i >> 8}.${i & 255}`, i);
  assert.equal(rl.size(), 100);
});
