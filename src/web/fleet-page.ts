// Pure: the fleet page: the filtered fleet's denominators, the top offenders as bars, and
// the ranking table whose rows link to each signature's page under the same filter.
import { el, text } from '../report-html/markup.js';
import { renderBarChart } from '../report-html/charts/bar-chart.js';
import type {
  FilterValues,
  FleetFilter,
  FleetRankingResult,
  FleetTotals,
  OffenderRow,
} from './fleet-reader.js';
import { filterForm, formatRate, formatTime, pageLink, renderWebPage } from './web-page.js';

/** The denominators as a definition list (data-field names the numbers for tests and tools). */
export function totalsList(t: FleetTotals): string {
  const item = (field: string, label: string, value: string): string =>
    el('div', {}, el('dt', {}, text(label)), el('dd', { 'data-field': field }, text(value)));
  return el(
    'dl',
    { class: 'totals', id: 'totals' },
    item('bundles', 'bundles', String(t.bundles)),
    item('machines', 'machines', String(t.machines)),
    item('playbackHours', 'playback hours', t.playbackHours.toFixed(1)),
    item('kernel', 'kernel-code events', String(t.classes.kernel)),
    item('idle', 'idle', String(t.classes.idle)),
    item('user', 'user space', String(t.classes.user)),
    item('none', 'no stack', String(t.classes.none)),
  );
}

const rowName = (r: OffenderRow): string => r.signature ?? `(${r.class})`;

function rankingTable(result: FleetRankingResult, filter: FleetFilter): string {
  if (result.rows.length === 0)
    return el('p', { class: 'empty' }, text('No incidents under this filter.'));
  const head = el(
    'tr',
    {},
    ...[
      '#',
      'offender',
      'class',
      'incidents',
      'machines',
      'per machine-hour',
      'share',
      'first seen',
      'last seen',
    ].map((h, i) => el('th', { class: i >= 3 && i <= 6 ? 'num' : undefined }, text(h))),
  );
  const rows = result.rows.map((r, i) =>
    el(
      'tr',
      { 'data-signature': r.signature ?? '', 'data-class': r.class },
      el('td', { class: 'num' }, text(i + 1)),
      el(
        'td',
        { class: 'sig' },
        r.signature === null
          ? text(rowName(r))
          : el(
              'a',
              { href: pageLink('/signature', filter, { sig: r.signature }) },
              text(r.signature),
            ),
      ),
      el('td', {}, text(r.class)),
      el('td', { class: 'num', 'data-field': 'incidents' }, text(r.incidents)),
      el('td', { class: 'num', 'data-field': 'machines' }, text(r.machines)),
      el(
        'td',
        { class: 'num', 'data-field': 'perMachineHour' },
        text(formatRate(r.perMachineHour)),
      ),
      el('td', { class: 'num' }, text(`${(100 * r.share).toFixed(1)} %`)),
      el('td', {}, text(formatTime(r.firstSeenMs))),
      el('td', {}, text(formatTime(r.lastSeenMs))),
    ),
  );
  const more =
    result.more > 0
      ? el('p', { class: 'sub' }, text(`${result.more} more offenders not shown (raise limit=).`))
      : '';
  return el('table', { id: 'ranking' }, el('thead', {}, head), el('tbody', {}, ...rows)) + more;
}

/** The whole fleet page. */
export function renderFleetPage(
  result: FleetRankingResult,
  filter: FleetFilter,
  values: FilterValues,
): string {
  const top = result.rows.slice(0, 15);
  const chart = renderBarChart({
    id: 'offenders',
    title: 'Top offenders (incidents)',
    unit: 'incidents',
    categories: top.map(rowName),
    categoryDetails: top.map(
      (r) => `${rowName(r)}: ${r.incidents} incidents on ${r.machines} machines`,
    ),
    categoryKeys: top.map((r) => r.signature ?? ''),
    series: [{ name: 'incidents', values: top.map((r) => r.incidents) }],
    integer: true,
    emptyText: 'No incidents under this filter.',
  });
  return renderWebPage('Fleet ranking', 'fleet', filter, [
    el('h1', {}, text('Fleet ranking')),
    el(
      'p',
      { class: 'sub' },
      text(
        'Kernel code that was running when the audio interrupt found the buffer late, across every stored bundle the filter keeps.',
      ),
    ),
    filterForm('/', filter, values),
    totalsList(result.totals),
    chart,
    el('h2', {}, text('Offenders')),
    rankingTable(result, filter),
  ]);
}
