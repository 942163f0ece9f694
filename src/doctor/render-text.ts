// doctor's human output: the conclusion first, then one line per check with its advice.
import type { DoctorReport } from './checks.js';

const MARK = { ok: ' ok ', warn: 'warn', fail: 'FAIL' } as const;

/** Renders a doctor report as plain text (no colours: it ends up pasted in bug reports). */
export function renderDoctorText(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((c) => c.id.length));
  const lines = [report.conclusion, ''];
  for (const c of report.checks) {
    lines.push(`[${MARK[c.status]}] ${c.id.padEnd(width)}  ${c.summary}`);
    if (c.advice && c.status !== 'ok') lines.push(`       ${' '.repeat(width)}  -> ${c.advice}`);
  }
  return lines.join('\n') + '\n';
}
