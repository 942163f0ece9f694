// The `try` result as text for a terminal: the knobs, a per-phase table of xruns per minute
// with the current setting (A) and the change (B), the ratio with its 95 % interval, the top
// offender in both, and the verdict. Pure.
import { describeRatio, fmtRatio, type TryResult } from './try-result.js';

const perMin = (x: number): string => (x >= 10 ? x.toFixed(0) : x.toFixed(2));

/** Renders a try result for the terminal. */
export function renderTryText(r: TryResult): string {
  const lines: string[] = [];
  lines.push(`xrunhunt try: ${r.rounds} A/B round${r.rounds === 1 ? '' : 's'}`);
  for (const k of r.knobs) lines.push(`  B: ${k.what}: ${k.from} → ${k.to}  (${k.spec})`);
  lines.push('');
  lines.push(
    `${'phase'.padEnd(12)} ${'A xruns/min'.padStart(12)} ${'B xruns/min'.padStart(12)}  ratio B/A (95 % CI)      p`,
  );
  const row = (name: string, rate: NonNullable<TryResult['total']>): string =>
    `${name.padEnd(12)} ${`${perMin(rate.a.perMinute)} (${rate.a.count})`.padStart(12)} ${`${perMin(rate.b.perMinute)} (${rate.b.count})`.padStart(12)}  ${`${fmtRatio(rate.ratio)} (${fmtRatio(rate.low)}–${fmtRatio(rate.high)})`.padEnd(24)} ${rate.p < 0.001 ? '<0.001' : rate.p.toFixed(3)}${rate.significant ? ' *' : ''}`;
  for (const p of r.phases) lines.push(row(p.name, p.rate));
  if (r.total) lines.push(row('all', r.total));
  if (r.topOffender)
    lines.push(
      '',
      `top offender ${r.topOffender.name}: ${r.topOffender.a} dumps in A, ${r.topOffender.b} in B (${describeRatio(r.topOffender.rate)})`,
    );
  lines.push('', r.verdict, '');
  return lines.join('\n');
}
