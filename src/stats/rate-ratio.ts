// The statistics of `try`: two xrun counts over two exposures (minutes of arm A and arm B) as
// Poisson rates, compared by their ratio B/A. Conditional on the total n = a + b, the count b
// is Binomial(n, π) with π = R·tB / (R·tB + tA), so the exact (Clopper–Pearson) interval on π
// maps to an exact interval on the rate ratio R. This is the interval and p-value of R's
// `poisson.test(c(b, a), c(tB, tA))` (and `binom.test`), which the tests check against.
// Pure: numbers in, numbers out.

/** The comparison of two Poisson rates. */
export interface RateRatio {
  /** Counts and exposures (minutes) of the current setting (A) and the changed one (B). */
  a: { count: number; minutes: number; perMinute: number };
  b: { count: number; minutes: number; perMinute: number };
  /** B's rate over A's: null when neither arm had an xrun (no information). */
  ratio: number | null;
  /** 95 % (or the asked level) exact interval; upper is Infinity when A had no xrun. */
  low: number;
  high: number;
  /** Two-sided exact p-value for "the rates are equal" (1 when there is no count at all). */
  p: number;
  /** The interval excludes 1. */
  significant: boolean;
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; ~15 significant digits). */
function lnGamma(x: number): number {
  const c = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531,
    -176.61503916999186, 12.507343278686905, -0.13857109526572012, 9.984369578019572e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  x -= 1;
  let s = c[0]!;
  for (let i = 1; i < 9; i++) s += c[i]! / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(s);
}

/** Continued fraction of the incomplete beta (modified Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(
    lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x),
  );
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(x, a, b)) / a
    : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** The q-quantile of Beta(a, b), by bisection (I_x is monotone in x). */
function betaQuantile(q: number, a: number, b: number): number {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (incompleteBeta(mid, a, b) < q) lo = mid;
    else hi = mid;
    if (hi - lo < 1e-15) break;
  }
  return (lo + hi) / 2;
}

/** Clopper–Pearson interval for a binomial proportion: k successes of n. */
export function clopperPearson(k: number, n: number, level = 0.95): { low: number; high: number } {
  const alpha = 1 - level;
  return {
    low: k === 0 ? 0 : betaQuantile(alpha / 2, k, n - k + 1),
    high: k === n ? 1 : betaQuantile(1 - alpha / 2, k + 1, n - k),
  };
}

/** ln of the binomial probability P(X = k), X ~ Binomial(n, p). */
export function lnBinomPmf(k: number, n: number, p: number): number {
  if (p === 0) return k === 0 ? 0 : -Infinity;
  if (p === 1) return k === n ? 0 : -Infinity;
  return (
    lnGamma(n + 1) -
    lnGamma(k + 1) -
    lnGamma(n - k + 1) +
    k * Math.log(p) +
    (n - k) * Math.log(1 - p)
  );
}

/** R's binom.test two-sided p-value: the sum of outcomes no more likely than the one seen. */
export function binomialTwoSidedP(k: number, n: number, p: number): number {
  if (n === 0) return 1;
  const d = lnBinomPmf(k, n, p);
  const relErr = 1 + 1e-7;
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    const li = lnBinomPmf(i, n, p);
    if (li <= d + Math.log(relErr)) sum += Math.exp(li);
  }
  return Math.min(1, sum);
}

/** Compares the xrun rate of B with A's (counts over minutes); exact, zeros handled. */
export function rateRatio(
  a: { count: number; minutes: number },
  b: { count: number; minutes: number },
  level = 0.95,
): RateRatio {
  for (const [name, arm] of [
    ['A', a],
    ['B', b],
  ] as const) {
    if (!Number.isInteger(arm.count) || arm.count < 0)
      throw new RangeError(`${name}: count must be a whole number ≥ 0, got ${arm.count}`);
    if (!(arm.minutes > 0))
      throw new RangeError(`${name}: minutes must be > 0, got ${arm.minutes}`);
  }
  const arms = {
    a: { ...a, perMinute: a.count / a.minutes },
    b: { ...b, perMinute: b.count / b.minutes },
  };
  const n = a.count + b.count;
  if (n === 0) return { ...arms, ratio: null, low: 0, high: Infinity, p: 1, significant: false };
  // π ↦ R: R = π/(1−π) · tA/tB.
  const toRatio = (pi: number): number =>
    pi >= 1 ? Infinity : (pi / (1 - pi)) * (a.minutes / b.minutes);
  const ci = clopperPearson(b.count, n, level);
  const low = toRatio(ci.low);
  const high = toRatio(ci.high);
  const p = binomialTwoSidedP(b.count, n, b.minutes / (a.minutes + b.minutes));
  return {
    ...arms,
    ratio: a.count === 0 ? Infinity : arms.b.perMinute / arms.a.perMinute,
    low,
    high,
    p,
    significant: high < 1 || low > 1,
  };
}
