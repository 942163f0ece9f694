// The lines a report prints for one XRUN's breakdown and for a summary of many. Names come
// from the traced machine (a task chooses its own comm), so they are escaped before printing.
import { escapeControlChars } from '../text/untrusted-text.js';
import type { BreakdownSummary, OwnSleepSummary } from './breakdown-summary.js';
import type { BreakdownPart, XrunBreakdown } from './breakdown-types.js';

const KIND_LABEL: Record<BreakdownPart['kind'], string> = {
  'irq-latency': 'irq latency',
  irq: 'irq',
  softirq: 'softirq',
  task: 'task',
  'idle-exit': 'idle exit',
  'own-run': 'own run',
  sleep: 'sleep',
  unexplained: 'unexplained',
};

function pct(share: number): string {
  return `${(share * 100).toFixed(1).padStart(5)} %`;
}

function msText(ms: number): string {
  return `${ms.toFixed(3).padStart(8)} ms`;
}

/** One part as a table row: share, net ms, kind, name with pid/prio/cpu. */
export function partLine(p: BreakdownPart): string {
  const who = [
    p.pid !== undefined && p.pid >= 0 ? `pid ${p.pid}` : '',
    p.prio !== undefined ? `prio ${p.prio}` : '',
    p.cpu !== undefined ? `cpu ${p.cpu}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const label = KIND_LABEL[p.kind].padEnd(11);
  return `${pct(p.share)} ${msText(p.ms)}  ${label} ${escapeControlChars(p.name)}${who ? ` (${who})` : ''}`;
}

/** The writer's own sleep in one line: its length as the kernel timed it, what it asked for. */
export function ownSleepLine(o: NonNullable<XrunBreakdown['ownSleep']>): string {
  const asked =
    o.askedMs === undefined
      ? ''
      : ` (asked for ${o.askedMs.toFixed(2)} ms${o.timerLateMs === undefined ? '' : `, its timer expired ${o.timerLateMs.toFixed(2)} ms after that`})`;
  return `own sleep: ${o.ms.toFixed(2)} ms${asked}, woken by ${escapeControlChars(o.wokenBy)}${o.wokeAfterHit ? ' after the XRUN' : ' before the XRUN'}`;
}

/** "20.1 ms", or "22.0 ms (19.8–26.3 ms)" when the sleeps differ by more than 1 ms. */
function sleptText(o: OwnSleepSummary): string {
  const range = o.maxMs - o.minMs > 1 ? ` (${o.minMs.toFixed(1)}–${o.maxMs.toFixed(1)} ms)` : '';
  return `${o.meanMs.toFixed(1)} ms${range}`;
}

/** The lines for one breakdown: header, summary, parts (largest first), stack of the top one. */
export function breakdownLines(b: XrunBreakdown, options: { maxParts?: number } = {}): string[] {
  const max = options.maxParts ?? 8;
  const lines = [
    `xrun at ${b.ts.toFixed(6)} s: ${b.cls}, late by ${b.latenessMs.toFixed(2)} ms ` +
      `(detected ${b.shape === 'process' ? 'in process context' : `in ${b.shape}`} by ` +
      `${escapeControlChars(b.detector.comm)} pid ${b.detector.pid} on cpu ${b.detector.cpu}; ` +
      `late: ${escapeControlChars(b.late.comm)} pid ${b.late.pid}, ${b.late.role})`,
    `  ${escapeControlChars(b.summary)}`,
  ];
  for (const p of b.parts.slice(0, max)) lines.push(`  ${partLine(p)}`);
  if (b.parts.length > max) {
    const rest = b.parts.slice(max);
    const ms = rest.reduce((s, p) => s + p.ms, 0);
    const share = rest.reduce((s, p) => s + p.share, 0);
    lines.push(`  ${pct(share)} ${msText(ms)}  ${rest.length} smaller parts`);
  }
  if (b.ownSleep) lines.push(`  ${ownSleepLine(b.ownSleep)}`);
  const stack = b.parts[0]?.stack;
  if (stack && stack.length > 0)
    lines.push(
      `  stack of ${escapeControlChars(b.parts[0]!.name)}: ${stack.slice(0, 6).map(escapeControlChars).join(' < ')}`,
    );
  if (!b.complete) lines.push(`  incomplete: ${escapeControlChars(b.missing ?? 'events missing')}`);
  return lines;
}

/** The lines for a summary of many breakdowns: counts, classes, shapes, top blockers. */
export function summaryLines(s: BreakdownSummary, options: { top?: number } = {}): string[] {
  const top = options.top ?? 10;
  if (s.xruns === 0) return ['no XRUN breakdowns (the flight recorder saw no XRUN)'];
  const counts = (r: Partial<Record<string, number>>): string =>
    Object.entries(r)
      .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  const lines = [
    `${s.xruns} XRUN breakdowns, ${s.complete} complete (${(s.completeShare * 100).toFixed(0)} %), ` +
      `mean lateness ${s.meanLatenessMs.toFixed(2)} ms`,
    `  classes: ${counts(s.byClass)}`,
    `  detected in: ${counts(s.byShape)}`,
  ];
  if (s.ownSleeps)
    lines.push(
      `  the writer itself slept ${sleptText(s.ownSleeps)} (${escapeControlChars(s.ownSleeps.comm)}) before ${s.ownSleeps.count} of them`,
    );
  lines.push('  blockers by net time:');
  for (const b of s.blockers.slice(0, top))
    lines.push(
      `  ${pct(b.share)} ${msText(b.totalMs)}  ${KIND_LABEL[b.kind].padEnd(11)} ` +
        `${escapeControlChars(b.name)}${b.prio !== undefined ? ` (prio ${b.prio})` : ''}` +
        ` — in ${b.count}, largest in ${b.topCount}`,
    );
  return lines;
}

/** The conclusion a report leads with when the flight recorder explained its XRUNs (null: none). */
export function breakdownConclusion(s: BreakdownSummary): string | null {
  const top = s.blockers[0];
  if (s.xruns === 0 || !top) return null;
  const own = s.ownSleeps;
  if (own && top.kind === 'sleep')
    return (
      `the flight recorder explained ${s.complete} of ${s.xruns} XRUNs: the writer itself slept ` +
      `${sleptText(own)} (${escapeControlChars(own.comm)}) before ${own.count} of them; no kernel code delayed it; ` +
      `see "latency breakdown" below`
    );
  const prio = top.prio !== undefined ? ` (prio ${top.prio})` : '';
  return (
    `the flight recorder explained ${s.complete} of ${s.xruns} XRUNs: the largest share of the lateness ` +
    `(${(top.share * 100).toFixed(0)} %, ${top.totalMs.toFixed(1)} ms, largest part in ${top.topCount}) was ` +
    `${KIND_LABEL[top.kind]} ${escapeControlChars(top.name)}${prio}; see "latency breakdown" below`
  );
}
