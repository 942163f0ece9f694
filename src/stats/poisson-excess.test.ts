import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binomialUpperTail, compareRates } from './poisson-excess.js';

const close = (a: number, b: number, rel = 1e-6): void =>
  assert.ok(Math.abs(a - b) <= rel * Math.max(1e-300, Math.abs(b)), `${a} ≉ ${b}`);

test('exact binomial tails match hand-computed values (R: binom.test(k, n, p, alternative = "greater"))', () => {
  // P(X ≥ 8 | n = 10, p = ½) = (45 + 10 + 1) / 1024
  close(binomialUpperTail(8, 10, 0.5), 56 / 1024);
  close(binomialUpperTail(10, 10, 0.5), 1 / 1024);
  close(binomialUpperTail(0, 10, 0.5), 1);
  assert.equal(binomialUpperTail(11, 10, 0.5), 0);
  // P(X ≥ 3 | n = 3, p = 0.2) = 0.008
  close(binomialUpperTail(3, 3, 0.2), 0.008);
  // P(X ≥ 1 | n = 5, p = 0.1) = 1 − 0.9⁵
  close(binomialUpperTail(1, 5, 0.1), 1 - 0.9 ** 5);
});

test('large counts stay finite and monotone (no overflow in the log-space terms)', () => {
  const a = binomialUpperTail(5200, 10_000, 0.5);
  const b = binomialUpperTail(5100, 10_000, 0.5);
  assert.ok(a > 0 && a < b && b < 0.05, `${a} ${b}`);
});

test('equal rates are not significant; a tripled rate over the same time is', () => {
  const same = compareRates(30, 60_000, 30, 60_000);
  assert.equal(same.excessPerMin, 0);
  assert.ok(same.pValue > 0.4, String(same.pValue));
  const tripled = compareRates(10, 60_000, 30, 60_000);
  assert.equal(tripled.ratio, 3);
  assert.equal(tripled.excessPerMin, 20);
  assert.ok(tripled.pValue < 0.01, String(tripled.pValue));
});

test('a zero baseline has no ratio; events only under load in a short window are still weighed by time', () => {
  const r = compareRates(0, 20_000, 5, 20_000);
  assert.equal(r.ratio, null);
  close(r.pValue, 0.5 ** 5);
  // The same 5 events in a window ten times longer than idle: expected under equal rates.
  assert.ok(compareRates(0, 2_000, 5, 20_000).pValue > 0.6);
});
