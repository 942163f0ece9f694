// What the A/B rounds of `try` add up to, pure: per phase the xruns per minute with the
// current setting (A) and the changed one (B), summed over the alternated rounds (A/B/A/B
// cancels slow drift such as a filling disk), their rate ratio with its exact 95 % interval,
// the top offender's counts in both, and one verdict a user can act on.
import { rateRatio, type RateRatio } from '../stats/rate-ratio.js';
import type { KnobChange } from './knobs/index.js';

/** One finished session of the run: its arm, its phases and its offenders. */
export interface TryRound {
  round: number;
  arm: 'A' | 'B';
  durationMs: number;
  phases: { name: string; xruns: number; durationMs: number }[];
  offenders: { name: string; count: number }[];
}

export interface TryPhaseResult {
  name: string;
  rate: RateRatio;
}

export interface TryOffenderResult {
  name: string;
  a: number;
  b: number;
  rate: RateRatio;
}

/** The result of a `try` run (also the `try` bundle's body and `--json`). */
export interface TryResult {
  knobs: { spec: string; what: string; from: string; to: string }[];
  /** Complete A+B pairs. */
  rounds: number;
  sessions: TryRound[];
  phases: TryPhaseResult[];
  total: RateRatio | null;
  /** The most frequent offender of the A rounds (or B's when A had none). */
  topOffender: TryOffenderResult | null;
  verdict: string;
  /** 0: B had significantly fewer xruns; 2: it did not (or too few rounds to tell). */
  exitCode: number;
}

const fmtRate = (perMin: number): string =>
  perMin >= 10 ? perMin.toFixed(0) : perMin >= 1 ? perMin.toFixed(1) : perMin.toFixed(2);

/** A ratio or a bound for a sentence (∞ when A had none). */
export function fmtRatio(x: number | null): string {
  if (x === null) return 'n/a';
  if (!Number.isFinite(x)) return '∞';
  if (x === 0) return '0';
  return x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toPrecision(2);
}

/** "ratio 0.07, 95 % CI 0.03–0.15" */
export function describeRatio(r: RateRatio): string {
  return `ratio ${fmtRatio(r.ratio)}, 95 % CI ${fmtRatio(r.low)}–${fmtRatio(r.high)}`;
}

const sumBy = <T>(xs: readonly T[], f: (x: T) => number): number =>
  xs.reduce((s, x) => s + f(x), 0);

/** Sums A and B per phase name over the rounds (only phases both arms ran for > 0 ms). */
function phaseRates(sessions: readonly TryRound[]): TryPhaseResult[] {
  const names = [...new Set(sessions.flatMap((s) => s.phases.map((p) => p.name)))];
  const out: TryPhaseResult[] = [];
  for (const name of names) {
    const arm = (a: 'A' | 'B'): { count: number; minutes: number } => {
      const ps = sessions
        .filter((s) => s.arm === a)
        .flatMap((s) => s.phases.filter((p) => p.name === name));
      return { count: sumBy(ps, (p) => p.xruns), minutes: sumBy(ps, (p) => p.durationMs) / 60_000 };
    };
    const a = arm('A');
    const b = arm('B');
    if (a.minutes > 0 && b.minutes > 0) out.push({ name, rate: rateRatio(a, b) });
  }
  return out;
}

function offenderRate(sessions: readonly TryRound[]): TryOffenderResult | null {
  const counts = (arm: 'A' | 'B'): Map<string, number> => {
    const m = new Map<string, number>();
    for (const s of sessions.filter((x) => x.arm === arm))
      for (const o of s.offenders) m.set(o.name, (m.get(o.name) ?? 0) + o.count);
    return m;
  };
  const a = counts('A');
  const b = counts('B');
  const top = [...(a.size > 0 ? a : b).entries()].sort((x, y) => y[1] - x[1])[0];
  if (!top) return null;
  const minutes = (arm: 'A' | 'B'): number =>
    sumBy(
      sessions.filter((s) => s.arm === arm),
      (s) => s.durationMs,
    ) / 60_000;
  const name = top[0];
  const ca = a.get(name) ?? 0;
  const cb = b.get(name) ?? 0;
  return {
    name,
    a: ca,
    b: cb,
    rate: rateRatio({ count: ca, minutes: minutes('A') }, { count: cb, minutes: minutes('B') }),
  };
}

/** One phase as a clause: "cut xruns under write from 41/min to 3/min (ratio …, 6 rounds)". */
function phaseClause(p: TryPhaseResult, rounds: number): string {
  const r = p.rate;
  const n = `${rounds} round${rounds === 1 ? '' : 's'}`;
  if (r.ratio === null) return `showed no xruns under ${p.name} with either setting (${n})`;
  const both = `from ${fmtRate(r.a.perMinute)}/min to ${fmtRate(r.b.perMinute)}/min (${describeRatio(r)}, ${n})`;
  if (!r.significant) return `made no significant difference under ${p.name}: ${both}`;
  return `${r.high < 1 ? 'cut' : 'raised'} xruns under ${p.name} ${both}`;
}

function offenderClause(o: TryOffenderResult): string {
  const r = o.rate;
  if (o.a > 0 && o.b === 0 && r.significant)
    return `the top offender \`${o.name}\` disappeared (${o.a} dumps with the current setting, none with the change)`;
  if (!r.significant)
    return `the top offender \`${o.name}\` did not change significantly (${o.a} → ${o.b} dumps, ${describeRatio(r)})`;
  return `the top offender \`${o.name}\` went from ${o.a} to ${o.b} dumps (${describeRatio(r)})`;
}

/** Adds up the sessions of a try run into its result and verdict. */
export function summarizeTry(
  changes: readonly KnobChange[],
  sessions: readonly TryRound[],
): TryResult {
  const knobs = changes.map((c) => ({ spec: c.spec, what: c.what, from: c.from, to: c.to }));
  const rounds = Math.min(
    sessions.filter((s) => s.arm === 'A').length,
    sessions.filter((s) => s.arm === 'B').length,
  );
  const paired = sessions.filter((s) => s.round <= rounds);
  const phases = phaseRates(paired);
  const armTotal = (arm: 'A' | 'B'): { count: number; minutes: number } => {
    const ps = paired.filter((s) => s.arm === arm).flatMap((s) => s.phases);
    return { count: sumBy(ps, (p) => p.xruns), minutes: sumBy(ps, (p) => p.durationMs) / 60_000 };
  };
  const ta = armTotal('A');
  const tb = armTotal('B');
  const total = ta.minutes > 0 && tb.minutes > 0 ? rateRatio(ta, tb) : null;
  const topOffender = offenderRate(paired);
  const setting = changes.map((c) => `${c.what} to ${c.to}`).join(' and ');
  let verdict: string;
  if (rounds === 0 || total === null)
    verdict = `No complete A/B round ran, so nothing can be said about setting ${setting}.`;
  else {
    const clauses = phases.map((p) => phaseClause(p, rounds));
    verdict = `Setting ${setting} ${clauses.join('; ')}`;
    if (topOffender) verdict += `; ${offenderClause(topOffender)}`;
    verdict += '.';
    if (total.significant && total.high < 1)
      verdict += ` It helps: make it permanent (xrunhunt put the original back after each B round).`;
    else if (total.significant)
      verdict += ` It makes audio worse here: keep the current setting (already restored).`;
    else if (total.ratio === null)
      verdict += ` Nothing to compare: no xruns with either setting; try a smaller --period or a heavier phase.`;
    else
      verdict += ` No significant effect over ${rounds} round${rounds === 1 ? '' : 's'}: this is not the cause, or its effect is smaller than this run can resolve (more --rounds narrow the interval).`;
  }
  return {
    knobs,
    rounds,
    sessions: [...sessions],
    phases,
    total,
    topOffender,
    verdict,
    exitCode: total !== null && total.significant && total.high < 1 ? 0 : 2,
  };
}
