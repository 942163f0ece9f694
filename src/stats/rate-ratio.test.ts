// Reference values: scipy.stats.binomtest(b, a+b, tB/(tA+tB)) with proportion_ci(method='exact')
// (Clopper–Pearson, the definition R's binom.test and poisson.test use), computed on this
// machine with SciPy 1.17.1; the (11, 21) case is the two-sample example of R's ?poisson.test
// (rate ratio 1.971488, 95 % CI 0.8584264–4.2772659, p = 0.07967).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { binomialTwoSidedP, clopperPearson, rateRatio } from './rate-ratio.js';

const close = (got: number, want: number, rel = 1e-6): void =>
  assert.ok(
    Math.abs(got - want) <= rel * Math.max(1, Math.abs(want)),
    `expected ${want}, got ${got}`,
  );

test("Clopper–Pearson matches R's binom.test(682, 925) interval", () => {
  const ci = clopperPearson(682, 925);
  close(ci.low, 0.707668264079039);
  close(ci.high, 0.7654065582414781);
});

test("rate ratio matches R's poisson.test two-sample example", () => {
  const r = rateRatio({ count: 21, minutes: 3011 }, { count: 11, minutes: 800 });
  close(r.ratio!, 1.9714880952380953);
  close(r.low, 0.858426403391619);
  close(r.high, 4.277265943654079);
  close(r.p, 0.0796686330333295, 1e-5);
  assert.equal(r.significant, false);
});

test('a big drop (41 → 3 per 6 min) is significant, with the exact interval', () => {
  const r = rateRatio({ count: 41, minutes: 6 }, { count: 3, minutes: 6 });
  close(r.ratio!, 0.07317073170731708);
  close(r.low, 0.014494764820650404);
  close(r.high, 0.2293500087063068);
  assert.ok(r.p < 1e-8);
  assert.equal(r.significant, true);
  close(r.a.perMinute, 41 / 6);
});

test('equal counts: ratio 1, wide interval, not significant', () => {
  const r = rateRatio({ count: 5, minutes: 2 }, { count: 5, minutes: 2 });
  assert.equal(r.ratio, 1);
  close(r.low, 0.23014246893811693);
  close(r.high, 4.345134579523825);
  close(r.p, 1);
  assert.equal(r.significant, false);
  const s = rateRatio({ count: 35, minutes: 10 }, { count: 30, minutes: 10 });
  close(s.low, 0.5083432175379453);
  close(s.high, 1.4370921089738649);
  close(s.p, 0.6201447650813029, 1e-5);
});

test('zeros: none in B gives low 0; none in A gives an infinite upper bound', () => {
  const gone = rateRatio({ count: 12, minutes: 5 }, { count: 0, minutes: 5 });
  assert.equal(gone.ratio, 0);
  assert.equal(gone.low, 0);
  close(gone.high, 0.35989381728770403);
  close(gone.p, 0.00048828125);
  assert.equal(gone.significant, true);
  const rose = rateRatio({ count: 0, minutes: 5 }, { count: 12, minutes: 5 });
  assert.equal(rose.ratio, Infinity);
  assert.equal(rose.high, Infinity);
  close(rose.low, 2.7785973305581577);
  assert.equal(rose.significant, true);
  const none = rateRatio({ count: 0, minutes: 5 }, { count: 0, minutes: 5 });
  assert.equal(none.ratio, null);
  assert.equal(none.significant, false);
  assert.equal(none.p, 1);
});

test('unequal exposures weigh the binomial proportion', () => {
  close(binomialTwoSidedP(1, 41, 0.5), 3.8198777474462986e-11, 1e-4);
  const r = rateRatio({ count: 40, minutes: 3 }, { count: 1, minutes: 3 });
  close(r.low, 0.0006176982088694059, 1e-5);
  close(r.high, 0.1475180600876888);
});

test('bad counts and exposures are refused', () => {
  assert.throws(() => rateRatio({ count: -1, minutes: 1 }, { count: 0, minutes: 1 }), RangeError);
  assert.throws(() => rateRatio({ count: 1, minutes: 0 }, { count: 0, minutes: 1 }), RangeError);
});
