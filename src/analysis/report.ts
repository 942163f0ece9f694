// Human reports of an analysis: plain text (terminal) and markdown (bug reports). The
// conclusion comes first in plain language; "the CPU was idle" is an answer too.
import type { AnalysisResult, Frame, OffenderRank, StreamedAnalysis, XrunEvent } from './types.js';
import { renderExplanation } from './classify.js';
import { detectorOnlySentences } from './detector-only-text.js';
import { breakdownLines, summaryLines } from '../recorder/breakdown-text.js';
import { summarizeBreakdowns } from '../recorder/breakdown-summary.js';
import type { XrunBreakdown } from '../recorder/breakdown-types.js';

export interface ReportOptions {
  /** Offenders shown in the ranking (default 10). */
  top?: number;
  /** Show every event's stack (default: the first 20 events). */
  verbose?: boolean;
}

// Events printed with their stacks unless --verbose: enough to read, short enough to scroll.
export const DEFAULT_EVENTS_SHOWN = 20;

const pct = (x: number): string => `${(x * 100).toFixed(x >= 0.1 || x === 0 ? 0 : 1)}%`;
const plural = (n: number, word: string, many = `${word}s`): string =>
  `${n} ${n === 1 ? word : many}`;

function offenderName(o: { function: string; module: string | null }): string {
  return o.module ? `${o.function} [${o.module}]` : o.function;
}

function kindPhrase(r: StreamedAnalysis): string {
  const k = r.summary.byKind;
  const parts: string[] = [];
  if (k.xrun) parts.push(plural(k.xrun, 'XRUN'));
  if (k.hw_ptr_error) parts.push(plural(k.hw_ptr_error, 'hw-pointer error'));
  if (k.invalid_position) parts.push(plural(k.invalid_position, 'invalid-position report'));
  return parts.join(', ');
}

/** `, detector-only N` when there are any (the line stays as it was for hard-IRQ logs). */
function detectorOnlyCount(r: StreamedAnalysis): string {
  const n = r.summary.byClass['detector-only'];
  return n > 0 ? `, detector-only ${n}` : '';
}

function describeSignature(o: OffenderRank): string {
  const s = o.signature;
  if (/_unlock_irq|local_irq_(?:enable|restore)|irq_restore|irq_enable/.test(s)) {
    return ' with interrupts off (the timer fired the moment they came back on)';
  }
  if (/local_bh_enable/.test(s)) return ' with softirqs off';
  if (/preempt/.test(s)) return ' with preemption off';
  return '';
}

/** The one-paragraph plain-language conclusion. */
export function conclusion(r: StreamedAnalysis): string {
  const n = r.summary.events;
  if (n === 0) {
    return 'No XRUN, hw-pointer or invalid-position reports were found in the input. If you expected some, check that xrun_debug was enabled (bit 0 for messages, bit 1 for stacks: `echo 3 > /proc/asound/card0/pcm0p/xrun_debug`) and that the log kept KERN_DEBUG/KERN_WARNING messages.';
  }
  const c = r.summary.byClass;
  const s: string[] = [`${plural(n, 'event')} (${kindPhrase(r)}).`];
  if (c.kernel > 0) {
    const top = r.offenders.slice(0, 3);
    const first = top[0]!;
    const lead = c.kernel === n ? `In all ${n}` : `In ${c.kernel} of ${n}`;
    s.push(
      `${lead} the interrupt arrived late while the CPU was running kernel code; the top offender is \`${offenderName(first)}\` (${first.count} event${first.count === 1 ? '' : 's'}, ${pct(first.share)} of all)${describeSignature(first)}.`,
    );
    if (top.length > 1) {
      s.push(
        `Next: ${top
          .slice(1)
          .map((o) => `\`${offenderName(o)}\` (${o.count})`)
          .join(', ')}.`,
      );
    }
  }
  if (c.idle > 0) {
    s.push(
      `In ${c.idle} the CPU was idle: nothing in the stack delayed the interrupt, so look at the application (late writes, too small a buffer) or at interrupt latency on other CPUs.`,
    );
  }
  if (c.user > 0)
    s.push(`In ${c.user} user-space code was interrupted: no kernel offender in the stack.`);
  s.push(...detectorOnlySentences(r.summary));
  if (c.none > 0) {
    s.push(
      `${c.none} had no usable interrupted context (no stack printed, or detected in process context such as the application's own write): enable stacks with xrun_debug bit 1 to see more.`,
    );
  }
  return s.join(' ');
}

function wrap(text: string, width = 78, indent = ''): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let cur = indent;
  for (const w of words) {
    if (cur.length + w.length + 1 > width && cur.trim().length > 0) {
      lines.push(cur.trimEnd());
      cur = indent;
    }
    cur += (cur.trim().length > 0 ? ' ' : '') + w;
  }
  if (cur.trim().length > 0) lines.push(cur.trimEnd());
  return lines.join('\n');
}

function frameText(f: Frame): string {
  let t = f.reliable ? '' : '? ';
  t += f.function;
  if (f.offset !== undefined && f.size !== undefined)
    t += `+0x${f.offset.toString(16)}/0x${f.size.toString(16)}`;
  if (f.module) t += ` [${f.module}]`;
  return t;
}

function eventTitle(e: XrunEvent): string {
  const where = e.source ? `${e.source}:${e.line}` : `line ${e.line}`;
  const t = e.time !== undefined ? ` at ${e.time.toFixed(6)}s` : '';
  const o = e.offender;
  const who =
    o.class === 'kernel'
      ? `kernel: ${offenderName({ function: o.function ?? '?', module: o.module })}`
      : o.class === 'idle'
        ? `idle${o.function ? ` (${o.function})` : ''}`
        : o.class === 'detector-only' && e.detection
          ? `detector-only (${e.detection.context}${e.detection.task ? ` ${e.detection.task.comm}` : ''})`
          : o.class;
  return `${where}${t}  ${e.kind}${e.pcm ? ` ${e.pcm}` : ''}  → ${who}`;
}

function stackLines(e: XrunEvent): string[] {
  return e.frames.map(
    (f, i) => `${i === e.offenderIndex ? '>>' : '  '} ${f.context.padEnd(7)} ${frameText(f)}`,
  );
}

export type HumanFormat = 'text' | 'markdown';

/**
 * The report before its event list (conclusion, ranking, counts, warnings): known only at
 * the end of the input, while the events may already have been spooled. Ends with a newline.
 */
export function renderReportHead(
  r: StreamedAnalysis,
  format: HumanFormat,
  opts: ReportOptions = {},
): string {
  const top = opts.top ?? 10;
  const c = r.summary.byClass;
  if (format === 'markdown') {
    const out: string[] = ['## xrunhunt analysis', '', conclusion(r), ''];
    if (r.offenders.length > 0) {
      out.push(
        '### Offenders',
        '',
        '| # | count | share | function | signature | lines |',
        '|---:|---:|---:|---|---|---|',
      );
      r.offenders.slice(0, top).forEach((o, i) => {
        out.push(
          `| ${i + 1} | ${o.count} | ${pct(o.share)} | \`${offenderName(o)}\` | \`${o.signature}\` | ${o.lines.slice(0, 5).join(', ')} |`,
        );
      });
      out.push('');
    }
    out.push(
      `Classes: kernel ${c.kernel}, idle ${c.idle}, user ${c.user}, none ${c.none}${detectorOnlyCount(r)}. Rules version ${r.summary.rulesVersion}.`,
      '',
    );
    if (r.warnings.length > 0) out.push('### Warnings', '', ...r.warnings.map((w) => `- ${w}`), '');
    if (r.summary.events > 0) out.push('### Events', '');
    return out.join('\n') + '\n';
  }
  const out: string[] = [wrap(conclusion(r)), ''];
  if (r.offenders.length > 0) {
    out.push('Offenders (interrupted kernel code, most frequent first)');
    const rows = r.offenders.slice(0, top);
    const w = Math.min(48, Math.max(8, ...rows.map((o) => offenderName(o).length)));
    out.push(
      `  ${'#'.padStart(3)}  ${'count'.padStart(5)}  ${'share'.padStart(5)}  ${'function'.padEnd(w)}  sigs  lines`,
    );
    rows.forEach((o, i) => {
      out.push(
        `  ${String(i + 1).padStart(3)}  ${String(o.count).padStart(5)}  ${pct(o.share).padStart(5)}  ${offenderName(o).padEnd(w)}  ${String(o.signatures).padStart(4)}  ${o.lines.slice(0, 5).join(', ')}`,
      );
      out.push(`  ${''.padStart(3)}  signature: ${o.signature}`);
    });
    if (r.offenders.length > rows.length)
      out.push(`  … ${r.offenders.length - rows.length} more (--top N)`);
    out.push('');
  }
  const k = r.summary.byKind;
  out.push(
    `Classes: kernel ${c.kernel}, idle ${c.idle}, user ${c.user}, none ${c.none}${detectorOnlyCount(r)}   Kinds: xrun ${k.xrun}, hw_ptr_error ${k.hw_ptr_error}, invalid_position ${k.invalid_position}`,
  );
  if (r.warnings.length > 0) {
    out.push('', 'Warnings:');
    for (const w of r.warnings) out.push(`  - ${w}`);
  }
  if (r.summary.events > 0) out.push('', 'Events (>> marks the offender frame)');
  return out.join('\n') + '\n';
}

/** One event of the report's event list, with its stack; ends with a newline. */
export function renderReportEvent(e: XrunEvent, format: HumanFormat, explain = false): string {
  const explanation =
    explain && e.offender.explanation ? renderExplanation(e.offender.explanation) : [];
  if (format === 'markdown') {
    const out = [`- ${eventTitle(e).replace(/\s+→/, ' →')}`];
    for (const l of explanation) out.push(`  - ${l.trim()}`);
    if (e.frames.length > 0)
      out.push('', '  ```', ...stackLines(e).map((l) => `  ${l}`), '  ```', '');
    if (e.breakdown) {
      const lines = breakdownLines(e.breakdown, { maxParts: 6 });
      out.push(
        '  - latency breakdown (flight recorder):',
        '',
        '  ```',
        ...lines.map((l) => `  ${l}`),
        '  ```',
        '',
      );
    }
    return out.join('\n') + '\n';
  }
  const out = ['', `  ${eventTitle(e)}`, `     ${e.header}`];
  if (e.offender.reason) out.push(`     why: ${e.offender.reason}`);
  for (const l of explanation) out.push(`     ${l}`);
  for (const l of stackLines(e)) out.push(`   ${l}`);
  if (e.breakdown) {
    out.push('     latency breakdown (flight recorder):');
    for (const l of breakdownLines(e.breakdown, { maxParts: 6 })) out.push(`       ${l}`);
  }
  return out.join('\n') + '\n';
}

/**
 * The breakdown section after the events (analyze of format 2 bundles): the same summary lines a
 * session prints (recorder/breakdown-text.ts); empty when no event carried a breakdown.
 */
export function renderBreakdownSection(
  breakdowns: readonly XrunBreakdown[],
  format: HumanFormat,
): string {
  if (breakdowns.length === 0) return '';
  const lines = summaryLines(summarizeBreakdowns(breakdowns));
  if (format === 'markdown')
    return ['', '### Latency breakdown (flight recorder)', '', '```', ...lines, '```', ''].join(
      '\n',
    );
  return [
    '',
    '  latency breakdown (flight recorder; docs/recorder.md "Reading a breakdown"):',
    ...lines.map((l) => `    ${l}`),
    '',
  ].join('\n');
}

/** The line after a shortened event list; empty when every event was listed. */
export function renderReportTail(listed: number, total: number, format: HumanFormat): string {
  if (listed >= total) return '';
  return format === 'markdown'
    ? `\n… ${total - listed} more events.\n`
    : `\n  … ${total - listed} more events (--verbose shows all)\n`;
}

function renderWhole(r: AnalysisResult, format: HumanFormat, opts: ReportOptions): string {
  const shown = opts.verbose ? r.events : r.events.slice(0, DEFAULT_EVENTS_SHOWN);
  let s = renderReportHead(r, format, opts);
  for (const e of shown) s += renderReportEvent(e, format, opts.verbose === true);
  const breakdowns = r.events.flatMap((e) => (e.breakdown ? [e.breakdown] : []));
  return (
    s +
    renderReportTail(shown.length, r.events.length, format) +
    renderBreakdownSection(breakdowns, format)
  );
}

/** Plain-text report: conclusion, ranking, then each event with its normalised stack. */
export function renderTextReport(r: AnalysisResult, opts: ReportOptions = {}): string {
  return renderWhole(r, 'text', opts);
}

/** Markdown report for pasting into a bug report. */
export function renderMarkdownReport(r: AnalysisResult, opts: ReportOptions = {}): string {
  return renderWhole(r, 'markdown', opts);
}
