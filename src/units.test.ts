import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, parseSize, parseInteger, formatDuration, formatBytes } from './units.js';
import { UsageError } from './errors.js';

test('durations as users write them', () => {
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('10s'), 10_000);
  assert.equal(parseDuration('2m'), 120_000);
  assert.equal(parseDuration('1.5h'), 5_400_000);
  assert.equal(parseDuration('3'), 3000);
  for (const bad of ['', 'ten', '10x', '-1s', '1 2s']) {
    assert.throws(
      () => parseDuration(bad, '--duration'),
      (e: unknown) => e instanceof UsageError && e.message.includes('--duration'),
    );
  }
});

test('sizes in binary multiples', () => {
  assert.equal(parseSize('4096'), 4096);
  assert.equal(parseSize('64K'), 65_536);
  assert.equal(parseSize('64M'), 64 * 1024 ** 2);
  assert.equal(parseSize('2G'), 2 * 1024 ** 3);
  assert.equal(parseSize('1GiB'), 1024 ** 3);
  assert.throws(() => parseSize('12Q'), UsageError);
});

test('integers with bounds', () => {
  assert.equal(parseInteger('64', '--period', 1), 64);
  assert.throws(() => parseInteger('0', '--period', 1), /at least 1/);
  assert.throws(() => parseInteger('6.5', '--period'), /whole number/);
});

test('formatting', () => {
  assert.equal(formatDuration(250), '250ms');
  assert.equal(formatDuration(1500), '1.5s');
  assert.equal(formatDuration(150_000), '2m 30s');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(64 * 1024 ** 2), '64.0 MiB');
});

test('negative durations and sizes say that negatives are the problem', () => {
  assert.throws(
    () => parseSize('-5M', '--size'),
    /invalid --size "-5M": a size cannot be negative/,
  );
  assert.throws(
    () => parseDuration('-10s', '--duration'),
    /invalid --duration "-10s": a duration cannot be negative/,
  );
});

test('a negative count where only positive ones make sense says so', () => {
  assert.throws(
    () => parseInteger('-1', '--top', 1, 100),
    /invalid --top -1: cannot be negative; expected a value from 1 to 100/,
  );
  assert.throws(
    () => parseInteger('-9', '--x', -5, 5),
    /invalid --x -9: expected a value from -5 to 5/,
  );
});

// Issue 30 item 4: numbers that reach a kernel file are exactly what the user typed.
test('sizes and integers parse exactly: no spaces, no exponents, no overflow, whole bytes', () => {
  assert.equal(parseSize('1.5G'), 1.5 * 1024 ** 3);
  assert.equal(parseSize('0.5K'), 512);
  for (const [bad, re] of [
    [' 64M', /no spaces/],
    ['64 M', /no spaces/],
    ['1e9', /no spaces/],
    ['0.3K', /not a whole number of bytes/],
    ['99999999999999999999999G', /too large/],
    ['9P', /no spaces/],
  ] as const)
    assert.throws(() => parseSize(bad, 'size'), re, bad);
  for (const bad of [' 10', '10 ', '1e1', '+5', '0x10', '１０'])
    assert.throws(() => parseInteger(bad, '--n', 0, 200), /digits only, no spaces/, bad);
  assert.throws(
    () => parseInteger('99999999999999999999', '--n'),
    /expected a whole number that fits in 53 bits/,
  );
  // An open range says so instead of "from 1 to Infinity".
  assert.throws(
    () => parseInteger('0', '--n', 1),
    /invalid --n 0: expected a whole number of at least 1$/,
  );
  assert.throws(
    () => parseInteger('\u001b[2J', '--n'),
    (e: unknown) => e instanceof UsageError && !e.message.includes('\u001b'),
  );
});
