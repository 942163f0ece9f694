// The body of a `try` report: the verdict, what B changed, a side-by-side bar chart of xruns
// per minute with the current setting (A) and the change (B) per phase, and the table of
// ratios with their 95 % intervals. Pure.
import { renderBarChart } from './charts/bar-chart.js';
import { el, text } from './markup.js';
import type { TryView } from './report-view.js';

const fmt = (x: number | null): string =>
  x === null ? 'n/a' : !Number.isFinite(x) ? '∞' : x === 0 ? '0' : x.toPrecision(2);

/** Renders the sections of a try report. */
export function renderTry(t: TryView): string[] {
  const chart = renderBarChart({
    id: 'try-rates',
    title: `Xruns per minute, A (current) and B (changed), ${t.rounds} alternated rounds`,
    unit: 'xruns/min',
    categories: t.rows.map((r) => r.name),
    series: [
      { name: 'A current', values: t.rows.map((r) => r.aPerMin) },
      { name: 'B changed', values: t.rows.map((r) => r.bPerMin) },
    ],
    emptyText: 'No complete A/B round ran.',
  });
  const head = ['phase', 'A xruns', 'A /min', 'B xruns', 'B /min', 'ratio B/A', '95 % CI', ''];
  const table = el(
    'table',
    { 'data-table': 'try' },
    el('tr', {}, ...head.map((h) => el('th', {}, text(h)))),
    ...t.rows.map((r) =>
      el(
        'tr',
        { 'data-row': r.name },
        ...[
          r.name,
          String(r.aCount),
          r.aPerMin.toFixed(2),
          String(r.bCount),
          r.bPerMin.toFixed(2),
          fmt(r.ratio),
          `${fmt(r.low)}–${fmt(r.high)}`,
          r.significant ? 'significant' : 'not significant',
        ].map((c) => el('td', {}, text(c))),
      ),
    ),
  );
  return [
    el('h2', {}, text('Verdict')),
    el('p', { class: 'verdict' }, text(t.verdict)),
    el('h2', {}, text('What B changed')),
    el(
      'ul',
      {},
      ...t.knobs.map((k) => el('li', {}, text(`${k.what}: ${k.from} → ${k.to} (${k.spec})`))),
    ),
    el('h2', {}, text('A and B side by side')),
    chart,
    table,
    t.topOffender
      ? el(
          'p',
          {},
          text(
            `Top offender ${t.topOffender.name}: ${t.topOffender.a} dumps in A, ${t.topOffender.b} in B.`,
          ),
        )
      : '',
  ];
}
