// A try result as the HTML report's view (the side-by-side chart and the ratio table).
import type { ReportView, TryRowView } from '../report-html/report-view.js';
import type { RateRatio } from '../stats/rate-ratio.js';
import type { TryResult } from './try-result.js';

const row = (name: string, r: RateRatio): TryRowView => ({
  name,
  aPerMin: r.a.perMinute,
  bPerMin: r.b.perMinute,
  aCount: r.a.count,
  bCount: r.b.count,
  ratio: r.ratio,
  low: r.low,
  high: r.high,
  significant: r.significant,
});

/** Maps a try result to the report view `writeHtmlReport` renders. */
export function tryReportView(r: TryResult, now: Date = new Date()): ReportView {
  return {
    kind: 'try',
    title: `xrunhunt try: ${r.knobs.map((k) => k.spec).join(' ')}`,
    generatedAt: now.toISOString(),
    try: {
      knobs: r.knobs,
      rounds: r.rounds,
      rows: [
        ...r.phases.map((p) => row(p.name, p.rate)),
        ...(r.total ? [row('all', r.total)] : []),
      ],
      topOffender: r.topOffender
        ? { name: r.topOffender.name, a: r.topOffender.a, b: r.topOffender.b }
        : null,
      verdict: r.verdict,
    },
  };
}
