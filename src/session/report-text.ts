// Renders the session report for people: plain text (terminal, report.txt) and Markdown
// (bug reports). Conclusion first, then the per-phase table, the ranked offenders with
// their signatures, the class shares, the correlation and where the logs are. Pure.
import { formatDuration } from '../units.js';
import type { HeadroomSummary, SessionThroughput } from './events.js';
import type { LoadEffect, SessionReport } from './report-model.js';
import { offenderName } from './report-build.js';
import { summaryLines } from '../recorder/breakdown-text.js';

/** How many offenders the human report lists (the JSON has all). */
const TOP_OFFENDERS = 10;

const pct = (share: number): string => `${(share * 100).toFixed(share >= 0.1 ? 0 : 1)}%`;

function fmtThroughput(t: SessionThroughput | null): string {
  if (!t) return '-';
  const parts: string[] = [];
  if (t.bytes > 0) parts.push(`${t.mbPerSec.toFixed(1)} MB/s`);
  if (t.opsPerSec !== undefined && t.opsPerSec > 0) parts.push(`${Math.round(t.opsPerSec)} op/s`);
  return parts.length ? parts.join(', ') : '0';
}

function fmtHeadroom(h: HeadroomSummary | null): string {
  if (!h) return '-';
  const ms = (us: number): string => (us / 1000).toFixed(2);
  return `${ms(h.p50Us)}/${ms(h.p99Us)}/${ms(h.minUs)}`;
}

/** Pads a table of strings into aligned columns (first column left, others right). */
function table(rows: string[][], indent = '  '): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map(
    (r) =>
      indent +
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join('  ')
        .trimEnd(),
  );
}

/** The load-over-idle table: per load kind, then the offenders each one brings. */
function loadEffectRows(fx: LoadEffect): { phases: string[][]; offenders: string[][] } {
  const p = (v: number): string => (v < 0.001 ? '<0.001' : v.toFixed(3));
  return {
    phases: [
      ['load', 'xruns/min', 'idle/min', 'added/min', '× idle', 'p'],
      ...fx.phases.map((ph) => [
        ph.kind,
        ph.xrunsPerMin.toFixed(1),
        fx.baseline.xrunsPerMin.toFixed(1),
        `${ph.excessXrunsPerMin >= 0 ? '+' : ''}${ph.excessXrunsPerMin.toFixed(1)}`,
        ph.ratio === null ? '-' : ph.ratio.toFixed(2),
        p(ph.pValue),
      ]),
    ],
    offenders: [
      ['offender', 'load', 'dumps', '/min', 'idle/min', 'added/min', 'p'],
      ...fx.offenders.map((o) => [
        offenderName(o),
        o.kind,
        String(o.loadCount),
        o.loadPerMin.toFixed(1),
        o.idlePerMin.toFixed(1),
        `+${o.excessPerMin.toFixed(1)}`,
        p(o.pValue),
      ]),
    ],
  };
}

/** A Markdown table from a header row and body rows. */
function markdownTable(rows: string[][]): string[] {
  return [
    `| ${rows[0]!.join(' | ')} |`,
    `|${rows[0]!.map(() => '---').join('|')}|`,
    ...rows.slice(1).map((row) => `| ${row.join(' | ')} |`),
  ];
}

function phaseRows(r: SessionReport): string[][] {
  return [
    [
      'phase',
      'time',
      'xruns',
      'xruns/min',
      'kernel events',
      'load throughput',
      'headroom ms p50/p99/min',
    ],
    ...r.phases.map((p) => [
      p.name,
      formatDuration(p.endMs - p.startMs),
      String(p.xruns),
      p.xrunsPerMin.toFixed(1),
      String(p.kernelEvents),
      fmtThroughput(p.throughput),
      fmtHeadroom(p.headroom),
    ]),
  ];
}

/** The plain-text report (terminal and report.txt). */
export function renderReportText(r: SessionReport): string {
  const out: string[] = [];
  out.push('Conclusion');
  for (const c of r.conclusion) out.push(`  ${c.replace(/`/g, '')}`);
  if (r.suggestions.length) {
    out.push('', 'What to try');
    for (const s of r.suggestions) out.push(`  - ${s}`);
  }
  out.push('', 'Phases');
  if (r.phases.length) out.push(...table(phaseRows(r)));
  else out.push('  (no load phase ran)');
  out.push('', 'Offenders (interrupted kernel code at each XRUN, ranked)');
  if (r.offenders.length === 0) {
    out.push(
      r.kernelCapture.source === 'none' || r.kernelCapture.pcm === null
        ? '  none: no kernel XRUN dumps were captured (see Kernel capture below)'
        : '  none: no kernel-code offender in the captured XRUN dumps',
    );
  } else {
    out.push(
      ...table([
        ['#', 'share', 'count', 'offender', 'phases'],
        ...r.offenders.slice(0, TOP_OFFENDERS).map((o, i) => [
          String(i + 1),
          pct(o.share),
          String(o.count),
          offenderName(o),
          Object.entries(o.phases)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
        ]),
      ]).map((l) => l.replace(/^(\s+\S+\s+)/, '$1')),
    );
    out.push('  signatures:');
    r.offenders.slice(0, TOP_OFFENDERS).forEach((o, i) => out.push(`    ${i + 1}. ${o.signature}`));
    if (r.offenders.length > TOP_OFFENDERS) {
      out.push(`  … ${r.offenders.length - TOP_OFFENDERS} more in the JSON report / bundle`);
    }
  }
  if (r.loadEffect && r.loadEffect.phases.length) {
    const rows = loadEffectRows(r.loadEffect);
    out.push('', `What the load adds over idle (${r.loadEffect.baseline.phases.join(', ')})`);
    out.push(...table(rows.phases));
    if (rows.offenders.length > 1) out.push('', ...table(rows.offenders));
    else out.push('  no offender is significantly more frequent under load than idle');
  }
  if (r.events.length) {
    const s = r.classShares;
    out.push(
      '',
      `Where the period interrupt landed (${r.events.length} kernel events): kernel code ${pct(s.kernel)}, idle ${pct(s.idle)}, user space ${pct(s.user)}, process context/unknown ${pct(s.none)}`,
    );
  }
  out.push('', 'Correlation');
  const c = r.correlation;
  if (r.kernelCapture.pcm === null) {
    out.push('  userspace xruns could not be matched to kernel events: no kernel PCM (see below)');
  } else {
    out.push(
      `  ${c.matched} of ${r.xruns.length} userspace xruns matched a kernel XRUN on ${r.kernelCapture.pcm}` +
        (c.matchRatio !== null ? ` (${pct(c.matchRatio)})` : '') +
        `; window: kernel event up to ${Math.round(c.windowMs * 10) / 10} ms before the xrun`,
    );
    out.push(
      `  ${c.unmatchedXruns} userspace xruns with no kernel dump (application late: scheduling)`,
    );
    out.push(`  ${c.unmatchedKernelEvents} kernel XRUNs on our stream with no userspace xrun`);
  }
  out.push(`  ${c.otherStreamEvents} kernel events on other streams`);
  out.push(
    `  clocks: ${c.clockAlignment === 'marker' ? `measured with a ${r.kernelCapture.source === 'trace_pipe' ? 'trace_marker' : '/dev/kmsg'} marker, offset ${((c.offsetNs ?? 0) / 1e6).toFixed(3)} ms` : c.clockAlignment === 'assumed' ? 'kernel log clock assumed equal to CLOCK_MONOTONIC' : 'no kernel log'}`,
  );
  out.push('', 'Kernel capture');
  out.push(
    (r.kernelCapture.source === 'trace_pipe'
      ? `  source: trace_pipe (kprobe on __snd_pcm_xrun, stack at each XRUN); stream: ${r.kernelCapture.pcm ?? 'any'}; lost events: ${r.kernelCapture.lostMessages}`
      : `  source: ${r.kernelCapture.source}; xrun_debug: ${r.kernelCapture.pcm ? `${r.kernelCapture.pcm} mask ${r.kernelCapture.mask ?? '-'}` : 'not set'}; lost messages: ${r.kernelCapture.lostMessages}`) +
      (r.kernelCapture.lostMessages > 0
        ? ` (${r.kernelCapture.lostMessages} kernel messages lost: raise log_buf_len)`
        : ''),
  );
  if (r.recorder) out.push(...recorderLines(r.recorder));
  for (const l of r.limitations) out.push(`  - ${l}`);
  pushWarningsAndFiles(out, r);
  return out.join('\n') + '\n';
}

/** Where the time went before each XRUN, from the flight recorder (its summary, indented). */
function breakdownSection(
  b: NonNullable<NonNullable<SessionReport['recorder']>['breakdown']>,
): string[] {
  if (b.breakdowns.length === 0) return ['  latency breakdown: no XRUN window was recorded'];
  const lines = summaryLines(b.summary, { top: 8 }).map((l) => `  ${l}`);
  if (b.unreadable > 0) lines.push(`  (${b.unreadable} windows had no readable hit line)`);
  return [
    '  latency breakdown (flight recorder; docs/recorder.md "Reading a breakdown"):',
    ...lines,
  ];
}

/** The flight recorder's lines (session and watch): what it recorded, then the breakdown. */
export function recorderLines(rec: NonNullable<SessionReport['recorder']>): string[] {
  return [recorderLine(rec), ...(rec.breakdown ? breakdownSection(rec.breakdown) : [])];
}

/** The flight recorder's line in the kernel capture section (`--recorder`). */
function recorderLine(rec: NonNullable<SessionReport['recorder']>): string {
  if (!rec.enabled) return `  flight recorder: off (${rec.reason})`;
  const fired = rec.probeHits !== null ? ` of ${rec.probeHits} fired` : '';
  return `  flight recorder: ${rec.hits} XRUN hits${fired}, ${rec.windowsKept} windows kept (recorder.txt), ${rec.events.length} events, ${rec.lines} lines, lost events: ${rec.lost}`;
}

/** The closing sections every run's text report ends with (session and watch alike). */
export function pushWarningsAndFiles(
  out: string[],
  r: Pick<SessionReport, 'warnings' | 'bundle' | 'files'>,
): void {
  if (r.warnings.length) {
    out.push('', 'Warnings');
    for (const w of r.warnings) out.push(`  - ${w}`);
  }
  out.push('', 'Files');
  if (r.bundle) {
    out.push(`  bundle folder: ${r.bundle}`);
    for (const [what, path] of Object.entries(r.files)) if (path) out.push(`    ${what}: ${path}`);
  } else out.push('  no bundle written');
}

/** The Markdown report (paste into a bug report). */
export function renderReportMarkdown(r: SessionReport): string {
  const out: string[] = ['# xrunhunt session report', ''];
  for (const c of r.conclusion) out.push(`- ${c}`);
  if (r.suggestions.length) {
    out.push('', '## What to try', '');
    for (const s of r.suggestions) out.push(`- ${s}`);
  }
  out.push('', '## Phases', '');
  out.push(...markdownTable(phaseRows(r)));
  out.push('', '## Offenders', '');
  if (r.offenders.length === 0) out.push('No kernel-code offender captured.');
  else {
    out.push('| # | share | count | offender | signature |', '|---|---|---|---|---|');
    r.offenders
      .slice(0, TOP_OFFENDERS)
      .forEach((o, i) =>
        out.push(
          `| ${i + 1} | ${pct(o.share)} | ${o.count} | \`${offenderName(o)}\` | \`${o.signature}\` |`,
        ),
      );
  }
  if (r.loadEffect && r.loadEffect.phases.length) {
    const rows = loadEffectRows(r.loadEffect);
    out.push('', '## What the load adds over idle', '');
    out.push(...markdownTable(rows.phases));
    if (rows.offenders.length > 1) out.push('', ...markdownTable(rows.offenders));
  }
  out.push(
    '',
    '## Setup',
    '',
    `- kernel ${r.host.kernelRelease} (${r.host.arch}, preempt ${r.host.preempt}, threadirqs ${r.host.threadirqs ? 'on' : 'off'})`,
    `- device ${r.params.device}, period ${r.params.periodFrames} × ${r.params.periods} at ${r.params.rateHz} Hz`,
    `- kernel capture: ${r.kernelCapture.source}, lost messages ${r.kernelCapture.lostMessages}`,
    `- correlation: ${r.correlation.matched} of ${r.xruns.length} xruns matched`,
  );
  for (const l of r.limitations) out.push(`- ${l}`);
  return out.join('\n') + '\n';
}
