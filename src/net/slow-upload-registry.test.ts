import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSlowUploadRegistry, pickDisplaceable } from './slow-upload-registry.js';

const policy = { minAgeMs: 1000, minBytesPerSec: 4096 };

test('the slowest upload old enough and below the rate is picked; healthy and young ones never', () => {
  const now = 10_000;
  assert.equal(
    pickDisplaceable(
      [
        { startedMs: 9_500, receivedBytes: 0 }, // too young
        { startedMs: 8_000, receivedBytes: 100_000 }, // healthy: 50 KB/s
        { startedMs: 7_000, receivedBytes: 3 }, // 1 byte/s
        { startedMs: 8_000, receivedBytes: 0 }, // 0 bytes/s: the slowest
      ],
      now,
      policy,
    ),
    3,
  );
  assert.equal(pickDisplaceable([{ startedMs: 8_000, receivedBytes: 9000 }], now, policy), null);
  assert.equal(pickDisplaceable([], now, policy), null);
});

test('the registry displaces within one client only, and forgets finished uploads', () => {
  const reg = createSlowUploadRegistry(policy);
  const cut: string[] = [];
  const forgetA = reg.add('a', {
    startedMs: 0,
    receivedBytes: () => 0,
    displace: () => cut.push('a'),
  });
  reg.add('b', { startedMs: 0, receivedBytes: () => 0, displace: () => cut.push('b') });
  assert.equal(reg.displaceOne('c', 5000), false);
  assert.equal(reg.displaceOne('a', 5000), true);
  assert.deepEqual(cut, ['a']);
  forgetA();
  assert.equal(reg.displaceOne('a', 5000), false);
});
