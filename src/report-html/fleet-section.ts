// The aggregate report's body: per ranking group, a bar chart of incidents and machines
// per offender, then the full table with kernels, preemption models, drivers and loads,
// and each offender's example stack collapsible.
import { renderBarChart } from './charts/bar-chart.js';
import { el, text } from './markup.js';
import type { FleetGroupView, FleetRowView, FleetView } from './report-view.js';
import { renderFacts } from './sections.js';

/** Offenders drawn as bars per group (the table lists all of them). */
export const MAX_FLEET_BARS = 20;

function rowName(r: FleetRowView): string {
  return r.function ? (r.module ? `${r.function} [${r.module}]` : r.function) : r.signature;
}

function groupSection(g: FleetGroupView, index: number, by: string | null): string {
  const top = g.rows.slice(0, MAX_FLEET_BARS);
  const cls = Object.entries(g.classes)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const table = el(
    'table',
    { class: 'fleet' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...[
          '#',
          'offender',
          'incidents',
          'machines',
          'share',
          'per machine-hour',
          'kernels',
          'preemption',
          'drivers',
          'loads',
        ].map((h, i) => el('th', { class: i >= 2 && i <= 5 ? 'num' : undefined }, text(h))),
      ),
    ),
    el(
      'tbody',
      {},
      ...g.rows.map((r, i) =>
        el(
          'tr',
          {},
          el('td', { class: 'num' }, text(i + 1)),
          el(
            'td',
            {},
            el(
              'details',
              { class: 'fleet-stack', 'data-signature': r.signature },
              el('summary', {}, el('code', {}, text(rowName(r)))),
              el('p', { class: 'mono' }, text(`signature: ${r.signature}`)),
              r.exampleStack.length > 0
                ? el('ol', {}, ...r.exampleStack.map((f) => el('li', {}, text(f))))
                : '',
            ),
          ),
          el('td', { class: 'num' }, text(r.incidents)),
          el('td', { class: 'num' }, text(r.machines)),
          el('td', { class: 'num' }, text(`${Math.round(r.share * 100)}%`)),
          el(
            'td',
            { class: 'num' },
            text(r.perMachineHour === null ? '—' : r.perMachineHour.toFixed(2)),
          ),
          el('td', {}, text(r.kernels.join(', '))),
          el('td', {}, text(r.preempt.join(', '))),
          el('td', {}, text(r.drivers.join(', '))),
          el('td', {}, text(r.loads.join(', '))),
        ),
      ),
    ),
  );
  return [
    el('h2', {}, text(g.key === null ? 'Fleet ranking' : `${by ?? 'group'}: ${g.key}`)),
    el(
      'p',
      { class: 'sub' },
      text(
        `${g.bundles} bundles from ${g.machines} machines, ${g.playbackHours.toFixed(2)} hours of playback` +
          (cls ? `; kernel events by interrupted context: ${cls}` : '') +
          (g.more > 0 ? `; ${g.more} more offenders not shown (--top)` : ''),
      ),
    ),
    renderBarChart({
      id: index === 0 ? 'fleet' : `fleet-${index}`,
      title: 'Incidents and machines affected per offender',
      unit: 'count',
      categories: top.map(rowName),
      categoryDetails: top.map((r) => `signature: ${r.signature}`),
      categoryKeys: top.map((r) => r.signature),
      series: [
        { name: 'incidents', values: top.map((r) => r.incidents) },
        { name: 'machines', values: top.map((r) => r.machines) },
      ],
      format: (v) => String(v),
      integer: true,
      emptyText: 'No kernel offenders in these bundles.',
    }),
    g.rows.length > 0 ? table : '',
  ].join('');
}

/** The whole fleet body. */
export function renderFleet(f: FleetView): string[] {
  const bundles = f.groups.reduce((n, g) => n + g.bundles, 0);
  return [
    f.warnings.length > 0
      ? el(
          'div',
          { class: 'conclusion warn' },
          el('ul', {}, ...f.warnings.map((w) => el('li', {}, text(w)))),
        )
      : '',
    renderFacts([{ label: 'fleet', facts: f.facts }]),
    f.groups.length === 0 || bundles === 0
      ? el(
          'p',
          { class: 'empty' },
          text('The fleet store holds no bundles yet (or none since --since).'),
        )
      : '',
    ...f.groups.map((g, i) => groupSection(g, i, f.by)),
  ];
}
