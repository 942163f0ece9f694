// Pure: the trend page: incidents per machine-hour by kernel release (version order) for
// the filtered fleet and its top signatures, chart and table.
import { el, text } from '../report-html/markup.js';
import type { FilterValues, FleetFilter, KernelTrend } from './fleet-reader.js';
import { renderTrendChart } from './trend-chart.js';
import { filterForm, formatRate, pageLink, renderWebPage } from './web-page.js';

/** The whole trend page. */
export function renderTrendPage(
  trend: KernelTrend,
  filter: FleetFilter,
  values: FilterValues,
): string {
  const table = el(
    'table',
    { id: 'trend-table' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', {}, text('kernel release')),
        el('th', { class: 'num' }, text('bundles')),
        el('th', { class: 'num' }, text('all')),
        ...trend.series.map((s, i) =>
          el('th', { class: 'num', title: s.signature }, text(`#${i + 1}`)),
        ),
      ),
    ),
    el(
      'tbody',
      {},
      ...trend.fleet.map((k, ri) =>
        el(
          'tr',
          { 'data-release': k.release },
          el('td', {}, text(k.release)),
          el('td', { class: 'num', 'data-field': 'bundles' }, text(k.bundles)),
          el(
            'td',
            { class: 'num', 'data-field': 'incidents' },
            text(`${k.incidents} (${formatRate(k.perMachineHour)}/h)`),
          ),
          ...trend.series.map((s) => el('td', { class: 'num' }, text(s.points[ri]!.incidents))),
        ),
      ),
    ),
  );
  const key = el(
    'ol',
    {},
    ...trend.series.map((s) =>
      el(
        'li',
        { class: 'sig' },
        el('a', { href: pageLink('/signature', filter, { sig: s.signature }) }, text(s.signature)),
      ),
    ),
  );
  return renderWebPage('Trend by kernel', 'trend', filter, [
    el('h1', {}, text('Trend across kernel releases')),
    filterForm('/trend', filter, values),
    renderTrendChart(trend),
    el('h2', {}, text('Incidents per release')),
    table,
    el('h3', {}, text('Signatures #1…')),
    key,
  ]);
}
