// Renders a comparison of two sessions as aligned text (pure).
import { offenderName } from './report-build.js';
import type { Comparison, HeadroomStats, PhaseSide } from './compare.js';
import type { ComparedBreakdowns } from './compare-breakdown.js';
import { escapeControlChars } from '../text/untrusted-text.js';

const f1 = (v: number | null | undefined): string =>
  v === null || v === undefined ? '-' : v.toFixed(1);
const ms = (us: number | null | undefined): string =>
  us === null || us === undefined ? '-' : (us / 1000).toFixed(2);

function delta(a: number | null | undefined, b: number | null | undefined): string {
  if (a === null || a === undefined || b === null || b === undefined) return '';
  if (a === 0) return b === 0 ? '=' : '+∞';
  const d = ((b - a) / Math.abs(a)) * 100;
  return `${d >= 0 ? '+' : ''}${d.toFixed(0)}%`;
}

function cols(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map(
    (r) =>
      '  ' +
      r
        .map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!)))
        .join('  ')
        .trimEnd(),
  );
}

const hs = (h: HeadroomStats | null): string[] =>
  h ? [ms(h.mean), ms(h.stddev), ms(h.low1), ms(h.worst)] : ['-', '-', '-', '-'];

const sideRow = (label: string, s: PhaseSide | null): string[] =>
  s
    ? [
        label,
        String(s.xruns),
        f1(s.xrunsPerMin),
        s.mbPerSec === null ? '-' : f1(s.mbPerSec),
        s.opsPerSec === null ? '-' : Math.round(s.opsPerSec).toString(),
        ...hs(s.headroom),
      ]
    : [label, '-', '-', '-', '-', '-', '-', '-', '-'];

/** The human comparison: summary, per-phase table, offenders new / gone / moved. */
export function renderComparisonText(c: Comparison): string {
  const out: string[] = [];
  out.push(
    `A: ${c.a.label} — kernel ${c.a.kernel}, preempt ${c.a.preempt}, ${c.a.device}, period ${c.a.periodFrames ?? '-'} / buffer ${c.a.bufferFrames ?? '-'}`,
  );
  out.push(
    `B: ${c.b.label} — kernel ${c.b.kernel}, preempt ${c.b.preempt}, ${c.b.device}, period ${c.b.periodFrames ?? '-'} / buffer ${c.b.bufferFrames ?? '-'}`,
  );
  out.push('', 'Overall');
  out.push(
    ...cols([
      ['', 'A', 'B', 'change'],
      ['xruns', String(c.a.xruns), String(c.b.xruns), delta(c.a.xruns, c.b.xruns)],
      [
        'xruns/min',
        f1(c.a.xrunsPerMin),
        f1(c.b.xrunsPerMin),
        delta(c.a.xrunsPerMin, c.b.xrunsPerMin),
      ],
      [
        'kernel events',
        String(c.a.kernelEvents),
        String(c.b.kernelEvents),
        delta(c.a.kernelEvents, c.b.kernelEvents),
      ],
      [
        'headroom mean ms',
        ms(c.a.headroomSamples?.mean),
        ms(c.b.headroomSamples?.mean),
        delta(c.a.headroomSamples?.mean, c.b.headroomSamples?.mean),
      ],
      [
        'headroom stddev ms',
        ms(c.a.headroomSamples?.stddev),
        ms(c.b.headroomSamples?.stddev),
        delta(c.a.headroomSamples?.stddev, c.b.headroomSamples?.stddev),
      ],
      [
        'headroom p50 ms',
        ms(c.a.headroom?.p50),
        ms(c.b.headroom?.p50),
        delta(c.a.headroom?.p50, c.b.headroom?.p50),
      ],
      [
        'headroom worst ms',
        ms(c.a.headroom?.min),
        ms(c.b.headroom?.min),
        delta(c.a.headroom?.min, c.b.headroom?.min),
      ],
    ]),
  );
  out.push('', 'Per phase (headroom from per-second minima: mean / stddev / low 1% / worst, ms)');
  const rows: string[][] = [
    ['phase', 'xruns', '/min', 'MB/s', 'op/s', 'mean', 'stddev', 'low1%', 'worst'],
  ];
  for (const p of c.phases) {
    rows.push(sideRow(`${p.name} A`, p.a), sideRow(`${p.name} B`, p.b));
  }
  out.push(...cols(rows));
  out.push('', 'Offenders (B rank vs A rank)');
  if (c.offenders.length === 0) out.push('  none in either session');
  for (const o of c.offenders) {
    const where =
      o.status === 'new'
        ? `new in B: #${o.b!.rank}, ${o.b!.count}`
        : o.status === 'gone'
          ? `gone (A: #${o.a!.rank}, ${o.a!.count})`
          : `${o.status === 'moved' ? 'moved' : 'same'}: #${o.a!.rank} → #${o.b!.rank}, ${o.a!.count} → ${o.b!.count}`;
    out.push(`  ${offenderName(o)}  ${where}`);
  }
  if (c.tries?.length) {
    out.push('', 'Try runs (B/A: the xrun rate with the knobs over without, all phases)');
    const r = (x: number | null): string => (x === null ? '∞' : x.toPrecision(2));
    for (const t of c.tries)
      out.push(
        `  ${t.side}: ${t.knobs.join(' ')}, ${t.rounds} rounds: ratio ${t.ratio === null ? 'n/a' : r(t.ratio)} (95 % CI ${t.low === null ? '-' : r(t.low)}–${r(t.high)})${t.significant ? ', significant' : ''}`,
        `     ${t.verdict}`,
      );
  }
  if (c.breakdowns) out.push('', ...breakdownClassLines(c.breakdowns));
  if (c.notes.length) {
    out.push('', 'Notes');
    for (const n of c.notes) out.push(`  - ${n}`);
  }
  return out.join('\n') + '\n';
}

/** The breakdown classes section: XRUNs per class A → B, with shares, and each side's top blocker. */
function breakdownClassLines(d: ComparedBreakdowns): string[] {
  const pct = (x: number): string => `${(x * 100).toFixed(0)} %`;
  const out = [
    `Latency breakdown classes (flight recorder): A ${d.a.xruns} XRUNs explained, B ${d.b.xruns}`,
  ];
  for (const c of d.classes)
    out.push(`  ${c.class.padEnd(17)} ${c.a} (${pct(c.aShare)}) → ${c.b} (${pct(c.bShare)})`);
  const top = (s: ComparedBreakdowns['a']): string =>
    s.topBlocker
      ? `${s.topBlocker.kind} ${escapeControlChars(s.topBlocker.name)}${s.topBlocker.prio !== undefined ? ` (prio ${s.topBlocker.prio})` : ''}, ${pct(s.topBlocker.share)} of the lateness`
      : 'none';
  out.push(`  top blocker A: ${top(d.a)}`, `  top blocker B: ${top(d.b)}`);
  return out;
}
