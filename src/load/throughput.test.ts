import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatSampleLine,
  mbPerSec,
  plural,
  sampleBetween,
  sumCounters,
  toStats,
} from './throughput.js';

test('MB/s uses 10^6-byte megabytes like dd; zero time gives zero, not Infinity', () => {
  assert.equal(mbPerSec(500_000_000, 2), 250);
  assert.equal(mbPerSec(1, 0), 0);
});

test('parallel workers add bytes and ops; the run lasts as long as the longest worker', () => {
  const sum = sumCounters([
    { bytes: 100, ops: 1, activeMs: 900 },
    { bytes: 50, ops: 2, activeMs: 1000 },
  ]);
  assert.deepEqual(sum, { bytes: 150, ops: 3, activeMs: 1000 });
});

test('stats carry ops only for kinds that count them', () => {
  const c = { bytes: 3_000_000, ops: 30, activeMs: 1500 };
  assert.deepEqual(toStats('fsync', c, 1, 'fsync'), {
    kind: 'fsync',
    seconds: 1.5,
    bytes: 3_000_000,
    mbPerSec: 2,
    ops: 30,
    opsPerSec: 20,
    opsUnit: 'fsync',
    workers: 1,
  });
  assert.equal('ops' in toStats('write', c, 1, undefined), false);
});

test('a sample is the difference of two snapshots over the interval', () => {
  const s = sampleBetween(
    'metadata',
    { bytes: 1_000_000, ops: 100, activeMs: 1000 },
    { bytes: 3_000_000, ops: 600, activeMs: 2000 },
    1000,
  );
  assert.deepEqual(s, {
    kind: 'metadata',
    t: 2,
    seconds: 1,
    bytes: 2_000_000,
    mbPerSec: 2,
    ops: 500,
    opsPerSec: 500,
  });
  assert.equal(formatSampleLine(s, 'file op'), 'metadata  2s  2.0 MB/s  500 file ops/s');
});

test('op units read naturally in the plural', () => {
  assert.deepEqual(['hash', 'process', 'fsync', 'file op', 'page'].map(plural), [
    'hashes',
    'processes',
    'fsyncs',
    'file ops',
    'pages',
  ]);
});
