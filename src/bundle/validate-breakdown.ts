// The rules of format 2 that JSON Schema cannot say about the flight recorder's breakdowns:
// the parts of one breakdown add up to at most its lateness (+ 5 % for rounding and nested
// handlers; net parts are never negative, which the schema already says), and a bundle carries
// at most MAX_BREAKDOWNS of them in all. Pure; run by validate.ts after the schema walk.
import type { Bundle } from './schema.js';
import { MAX_BREAKDOWNS, SUM_TOLERANCE, type BundleBreakdown } from './schema-breakdown.js';

/** How a rule reports: the path, what was expected, the value found (validate.ts's fail). */
export type Fail = (path: string, expected: string, found: unknown) => never;

// A few microseconds of absolute slack: parts and lateness are rounded independently.
const ABS_SLACK_MS = 0.001;

function checkSum(b: BundleBreakdown, path: string, fail: Fail): void {
  const sum = b.parts.reduce((s, p) => s + p.ms, 0);
  const limit = b.latenessMs * (1 + SUM_TOLERANCE) + ABS_SLACK_MS;
  if (sum > limit) {
    fail(
      `${path}.parts`,
      `parts whose ms add up to at most latenessMs + ${SUM_TOLERANCE * 100} % (${limit.toFixed(3)} ms)`,
      Number(sum.toFixed(3)),
    );
  }
}

/** Checks every breakdown of a schema-checked bundle; throws through `fail` on the first bad one. */
export function breakdownRules(b: Bundle, fail: Fail): void {
  let n = 0;
  b.events.forEach((e, i) => {
    if (e.breakdown === undefined) return;
    n++;
    checkSum(e.breakdown, `events[${i}].breakdown`, fail);
  });
  const run = b.breakdown;
  if (run !== undefined) {
    run.unmatched.forEach((u, i) => checkSum(u, `breakdown.unmatched[${i}]`, fail));
    n += run.unmatched.length;
  }
  if (n > MAX_BREAKDOWNS) {
    fail('events', `at most ${MAX_BREAKDOWNS} breakdowns in one bundle`, `${n} breakdowns`);
  }
}
