// The four charts of a run report (one run, or two overlaid for compare): xrun timeline,
// headroom, offender bars, per-phase throughput. Turns RunViews into chart inputs.
import { renderBarChart } from './charts/bar-chart.js';
import { renderHistogramChart } from './charts/histogram-chart.js';
import { renderTimelineChart } from './charts/timeline-chart.js';
import type { LogTimelineSample, OffenderView, RunView } from './report-view.js';

/** Offenders shown in the bar chart; the rest are summed into the list below it. */
export const MAX_OFFENDER_BARS = 15;

/**
 * A log's XRUN events over its kernel clock, from the first event: when they came, and in
 * bursts or steadily. Only for one input with timestamps (separate boots' clocks differ).
 * Big logs arrive thinned (every n-th event time, see from-analysis.ts): each drawn point
 * then stands for n events, and the curve still ends at the total.
 */
export function logTimelineChart(run: RunView): string {
  const sample =
    run.logTimeline ??
    ({
      timesS: run.events.flatMap((e) => (e.kernelTime === null ? [] : [e.kernelTime])),
      every: 1,
      timed: run.events.filter((e) => e.kernelTime !== null).length,
      oneInput: new Set(run.events.map((e) => e.source)).size <= 1,
    } satisfies LogTimelineSample);
  const times = [...sample.timesS].sort((a, b) => a - b);
  if (times.length < 2 || !sample.oneInput) return '';
  // Loops, not Math.min(...times): spreading 100 000 arguments overflows the stack.
  const t0 = times[0]!;
  const ms = times.map((t) => (t - t0) * 1000);
  const counts = ms.map((_, i) => Math.min(sample.timed, i * sample.every + 1));
  counts[counts.length - 1] = sample.timed;
  const thinned = sample.every > 1 ? `; one point per ${sample.every} events` : '';
  return renderTimelineChart(
    [
      {
        name: run.label,
        phases: [],
        xrunsMs: ms,
        xrunCounts: counts,
        kernelEventsMs: [],
        durationMs: ms[ms.length - 1]!,
      },
    ],
    {
      title: `XRUN events over the kernel clock (seconds after the first, at ${t0.toFixed(3)} s${thinned})`,
      pointLabel: 'event',
    },
  );
}

/** The timeline, or nothing when no run has a session clock (a pasted log). */
export function timelineChart(runs: readonly RunView[]): string {
  const timed = runs.filter((r) => r.durationMs !== null);
  if (timed.length === 0) return '';
  return renderTimelineChart(
    timed.map((r) => ({
      name: r.label,
      phases: r.phases,
      xrunsMs: r.xrunsMs,
      kernelEventsMs: r.events.flatMap((e) => (e.sessionMs === null ? [] : [e.sessionMs])),
      durationMs: r.durationMs ?? 0,
    })),
  );
}

/** Histogram buckets: tenths of the longest buffer, the last one open-ended (≥ 90%). */
export const HEADROOM_BUCKETS = 10;

/** Bucket lower edges (µs) shared by all runs, so two runs' shapes compare directly. */
export function headroomBucketStarts(bufferUs: number): number[] {
  return Array.from({ length: HEADROOM_BUCKETS }, (_, i) => (i * bufferUs) / HEADROOM_BUCKETS);
}

/** Counts samples per bucket (below 0 → first, above the last start → last). */
export function bucketCounts(samplesUs: readonly number[], starts: readonly number[]): number[] {
  const counts = starts.map(() => 0);
  for (const us of samplesUs) {
    let i = 0;
    while (i + 1 < starts.length && us >= starts[i + 1]!) i++;
    counts[i]! += 1;
  }
  return counts;
}

/** Headroom: a histogram of per-second minima when recorded, plus the percentiles. */
export function headroomChart(runs: readonly RunView[]): string {
  const charts: string[] = [];
  const sampled = runs.filter((r) => r.headroomSamplesUs.length > 0 && r.bufferUs !== null);
  if (sampled.length > 0) {
    const bufferUs = Math.max(...sampled.map((r) => r.bufferUs!));
    const starts = headroomBucketStarts(bufferUs);
    const period = runs.length === 1 ? runs[0]!.periodUs : null;
    charts.push(
      renderHistogramChart({
        id: 'headroom-histogram',
        title: `Smallest headroom in each second of playback (histogram; buffer ${(bufferUs / 1000).toFixed(2)} ms)`,
        bucketStartsUs: starts,
        series: sampled.map((r) => ({
          name: r.label,
          counts: bucketCounts(r.headroomSamplesUs, starts),
        })),
        markerUs: period,
        markerLabel: period === null ? '' : `one period (${(period / 1000).toFixed(2)} ms)`,
        countLabel: 'seconds',
        emptyText: 'No headroom was measured.',
      }),
    );
  }
  charts.push(headroomPercentiles(runs));
  return charts.join('');
}

function headroomPercentiles(runs: readonly RunView[]): string {
  if (runs.length === 1 && runs[0]!.phaseHeadroom.length > 0) {
    const r = runs[0]!;
    return renderBarChart({
      id: 'headroom',
      title: `Headroom when the writer woke, per load phase (µs; lower is closer to an xrun; period ${r.periodUs === null ? '?' : `${(r.periodUs / 1000).toFixed(2)} ms`})`,
      unit: 'µs',
      categories: r.phaseHeadroom.map((p) => p.phase),
      series: [
        { name: 'min', values: r.phaseHeadroom.map((p) => p.minUs) },
        { name: 'p99', values: r.phaseHeadroom.map((p) => p.p99Us) },
        { name: 'p50', values: r.phaseHeadroom.map((p) => p.p50Us) },
      ],
      emptyText: 'No headroom was measured.',
    });
  }
  const labels: string[] = [];
  for (const r of runs)
    for (const h of r.headroom) if (!labels.includes(h.label)) labels.push(h.label);
  return renderBarChart({
    id: 'headroom',
    title: 'Headroom when the writer woke (µs; lower is closer to an xrun)',
    unit: 'µs',
    categories: labels,
    series: runs.map((r) => ({
      name: r.label,
      values: labels.map((l) => r.headroom.find((h) => h.label === l)?.us ?? null),
    })),
    emptyText: 'No headroom was measured (no playback in this input).',
  });
}

/** Offender key used to line up the same offender across two runs. */
function offenderKey(o: OffenderView): string {
  return o.signature;
}

/** Offender bars: events per offender signature; both runs side by side when comparing. */
export function offenderChart(runs: readonly RunView[]): string {
  const order: OffenderView[] = [];
  for (const r of runs) {
    for (const o of r.offenders)
      if (!order.some((x) => offenderKey(x) === offenderKey(o))) order.push(o);
  }
  order.sort(
    (a, b) =>
      runs.reduce(
        (n, r) => n + (r.offenders.find((o) => offenderKey(o) === offenderKey(b))?.count ?? 0),
        0,
      ) -
      runs.reduce(
        (n, r) => n + (r.offenders.find((o) => offenderKey(o) === offenderKey(a))?.count ?? 0),
        0,
      ),
  );
  const top = order.slice(0, MAX_OFFENDER_BARS);
  return renderBarChart({
    id: 'offenders',
    title: 'Offenders: kernel code interrupted at each XRUN (click a bar to list its events)',
    unit: 'events',
    categories: top.map((o) =>
      o.function ? (o.module ? `${o.function} [${o.module}]` : o.function) : o.signature,
    ),
    categoryDetails: top.map((o) => `signature: ${o.signature}`),
    categoryKeys: top.map((o) => o.signature),
    series: runs.map((r) => ({
      name: r.label,
      values: top.map(
        (o) => r.offenders.find((x) => offenderKey(x) === offenderKey(o))?.count ?? 0,
      ),
    })),
    format: (v) => String(v),
    integer: true,
    emptyText: 'No kernel offenders: no XRUN dump interrupted kernel code (see the event classes).',
  });
}

/** Per-phase load throughput (MB/s, or operations/s for loads that count operations). */
export function throughputChart(runs: readonly RunView[]): string {
  const names: string[] = [];
  for (const r of runs)
    for (const p of r.phases) if (p.kind !== 'idle' && !names.includes(p.name)) names.push(p.name);
  const phaseOf = (r: RunView, n: string) => r.phases.find((p) => p.name === n);
  // A phase whose load counts operations but moves no bytes (metadata, fork) is charted in ops/s.
  const useOps = (n: string) =>
    runs.every((r) => {
      const p = phaseOf(r, n);
      return !p || ((p.mbPerSec ?? 0) === 0 && p.opsPerSec !== null);
    });
  const mb = names.filter((n) => !useOps(n));
  const ops = names.filter(useOps);
  const charts: string[] = [];
  if (mb.length > 0 || ops.length === 0) {
    charts.push(
      renderBarChart({
        id: 'throughput',
        title: 'Load throughput per phase',
        unit: 'MB/s',
        categories: mb,
        series: runs.map((r) => ({
          name: r.label,
          values: mb.map((n) => phaseOf(r, n)?.mbPerSec ?? null),
        })),
        emptyText: 'No load phases ran (idle only), so there is no throughput to show.',
      }),
    );
  }
  if (ops.length > 0) {
    charts.push(
      renderBarChart({
        id: 'throughput-ops',
        title: 'Load operations per phase',
        unit: 'ops/s',
        categories: ops,
        series: runs.map((r) => ({
          name: r.label,
          values: ops.map((n) => phaseOf(r, n)?.opsPerSec ?? null),
        })),
        emptyText: '',
      }),
    );
  }
  return charts.join('');
}
