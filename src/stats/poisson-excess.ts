// Is a count observed under load more than an idle baseline explains? Exact Poisson tails and
// the conditional (binomial) test of two Poisson rates: given n = a + b events in times tA and
// tB, b is Binomial(n, tB / (tA + tB)) when both rates are equal. One-sided, beside the two-sided
// rate ratio of rate-ratio.ts (`try`). Pure numbers.
import { lnBinomPmf } from './rate-ratio.js';

/** P(X ≥ k) for X ~ Binomial(n, p): the one-sided exact p-value of the conditional test. */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  let sum = 0;
  for (let i = k; i <= n; i++) {
    const term = Math.exp(lnBinomPmf(i, n, p));
    sum += term;
    // Terms fall geometrically past the mode; stop once they no longer change the sum.
    if (i > n * p && term < sum * 1e-15) break;
  }
  return Math.min(1, sum);
}

export interface RateComparison {
  /** Events per minute in the baseline and in the test window. */
  baselinePerMin: number;
  testPerMin: number;
  /** testPerMin − baselinePerMin (can be negative). */
  excessPerMin: number;
  /** testPerMin / baselinePerMin; null when the baseline had no events. */
  ratio: number | null;
  /** One-sided exact p-value that the test rate is not above the baseline rate. */
  pValue: number;
}

// Compares an event count in a test window with a baseline (e.g. a load phase with idle): the
// excess a load adds over what the machine (or the emulator) produces without it.
export function compareRates(
  baselineCount: number,
  baselineMs: number,
  testCount: number,
  testMs: number,
): RateComparison {
  const perMin = (n: number, ms: number): number => (ms > 0 ? (n * 60_000) / ms : 0);
  const baselinePerMin = perMin(baselineCount, baselineMs);
  const testPerMin = perMin(testCount, testMs);
  const n = baselineCount + testCount;
  const share = baselineMs + testMs > 0 ? testMs / (baselineMs + testMs) : 0;
  return {
    baselinePerMin,
    testPerMin,
    excessPerMin: testPerMin - baselinePerMin,
    ratio: baselineCount > 0 ? testPerMin / baselinePerMin : null,
    pValue: baselineMs > 0 ? binomialUpperTail(testCount, n, share) : 1,
  };
}
