import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clock, fit, framesToMs, hbar, progressBar, shortUs, sparkline } from './text-graphics.js';

test('sparkline: zero is flat, the maximum is a full block, newest on the right', () => {
  assert.equal(sparkline([0, 0, 4, 0, 2], 5), '▁▁█▁▅');
  assert.equal(sparkline([], 5), '');
  assert.equal(sparkline([0, 0], 5), '▁▁');
});

test('sparkline folds long histories into the width, aligned to the newest value', () => {
  // 6 values into 3 columns: sums of pairs (1+0, 0+0, 0+3).
  assert.equal(sparkline([1, 0, 0, 0, 0, 3], 3), '▃▁█');
  // 5 values into 2 columns (per = 3): newest group [0,0,3]=3, then [1,0]=1.
  assert.equal(sparkline([1, 0, 0, 0, 3], 2), '▃█');
  assert.ok(
    sparkline(
      Array.from({ length: 1000 }, (_, i) => i % 7),
      40,
    ).length <= 40,
  );
});

test('hbar fills in eighths and always has the exact width', () => {
  assert.equal(hbar(1, 1, 4), '████');
  assert.equal(hbar(0.5, 1, 4), '██  ');
  assert.equal(hbar(1, 16, 2), '▏ ');
  assert.equal(hbar(0, 1, 3), '   ');
  assert.equal(hbar(5, 0, 3), '   ');
  assert.equal(hbar(9, 1, 3), '███');
});

test('progress, clock, fit and unit helpers', () => {
  assert.equal(progressBar(5, 10, 4), '██░░');
  assert.equal(progressBar(20, 10, 4), '████');
  assert.equal(clock(42_999), '0:42');
  assert.equal(clock(3_723_000), '1:02:03');
  assert.equal(fit('abcdef', 4), 'abc…');
  assert.equal(fit('abc', 4), 'abc');
  assert.equal(framesToMs(64, 48000), '1.33 ms');
  assert.equal(shortUs(42), '42 µs');
  assert.equal(shortUs(1180), '1.2 ms');
  assert.equal(shortUs(25_000), '25 ms');
});
