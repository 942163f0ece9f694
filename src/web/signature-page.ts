// Pure: one signature's page: how often and where it happens, the kernel releases it
// appears and disappears in, its distinct stacks and their icicle graph.
import { el, text } from '../report-html/markup.js';
import type {
  FilterValues,
  FlameStacks,
  FleetFilter,
  SignatureDetail,
  ValueCount,
} from './fleet-reader.js';
import { renderFlameGraph } from './flame-graph.js';
import { filterForm, formatRate, formatTime, pageLink, renderWebPage } from './web-page.js';

function facet(title: string, id: string, list: ValueCount[]): string {
  return el(
    'div',
    { 'data-facet': id },
    el('h3', {}, text(title)),
    el(
      'table',
      {},
      el(
        'tbody',
        {},
        ...list.map((v) =>
          el('tr', {}, el('td', {}, text(v.value)), el('td', { class: 'num' }, text(v.count))),
        ),
      ),
    ),
  );
}

/** The signature page; `detail` null renders a "not under this filter" page. */
export function renderSignaturePage(
  signature: string,
  detail: SignatureDetail | null,
  flame: FlameStacks,
  filter: FleetFilter,
  values: FilterValues,
): string {
  const head = [
    el('h1', { class: 'sig' }, text(signature)),
    filterForm('/signature', filter, values, { sig: signature }),
  ];
  if (!detail) {
    return renderWebPage('Signature', 'signature', filter, [
      ...head,
      el('p', { class: 'empty' }, text('No incidents of this signature under this filter.')),
      el('p', {}, el('a', { href: pageLink('/', filter) }, text('back to the fleet ranking'))),
    ]);
  }
  const item = (field: string, label: string, value: string): string =>
    el('div', {}, el('dt', {}, text(label)), el('dd', { 'data-field': field }, text(value)));
  const kernels = el(
    'table',
    { id: 'kernels' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...[
          'kernel release',
          'incidents',
          'machines affected',
          'bundles',
          'machines',
          'per machine-hour',
          'first seen',
          'last seen',
        ].map((h) => el('th', {}, text(h))),
      ),
    ),
    el(
      'tbody',
      {},
      ...detail.kernels.map((k) =>
        el(
          'tr',
          { 'data-release': k.release },
          el('td', {}, text(k.release)),
          el('td', { class: 'num', 'data-field': 'incidents' }, text(k.incidents)),
          el('td', { class: 'num', 'data-field': 'affectedMachines' }, text(k.affectedMachines)),
          el('td', { class: 'num', 'data-field': 'bundles' }, text(k.bundles)),
          el('td', { class: 'num' }, text(k.machines)),
          el('td', { class: 'num' }, text(formatRate(k.perMachineHour))),
          el('td', {}, text(k.firstSeenMs === null ? '—' : formatTime(k.firstSeenMs))),
          el('td', {}, text(k.lastSeenMs === null ? '—' : formatTime(k.lastSeenMs))),
        ),
      ),
    ),
  );
  const stacks = detail.stacks.map((s, i) =>
    el(
      'details',
      { class: 'event', open: i === 0, 'data-stack': i },
      el('summary', {}, text(`stack ${i + 1}: ${s.count} incidents`)),
      el('ol', { class: 'frames' }, ...s.frames.map((f) => el('li', {}, text(f)))),
    ),
  );
  return renderWebPage(`Signature ${signature}`, 'signature', filter, [
    ...head,
    el(
      'p',
      { class: 'sub' },
      text(`function ${detail.function ?? '—'}, module ${detail.module ?? 'built-in'}`),
    ),
    el(
      'dl',
      { class: 'totals', id: 'totals' },
      item('incidents', 'incidents', String(detail.incidents)),
      item('machines', 'machines affected', String(detail.machines)),
      item('perMachineHour', 'per machine-hour', formatRate(detail.perMachineHour)),
      item('firstSeen', 'first seen', formatTime(detail.firstSeenMs)),
      item('lastSeen', 'last seen', formatTime(detail.lastSeenMs)),
      item('appearsIn', 'appears in', detail.appearsIn ?? '—'),
      item(
        'disappearsIn',
        'disappears in',
        detail.disappearsIn ?? 'still present on the newest release',
      ),
    ),
    el('h2', {}, text('Kernel releases (version order)')),
    kernels,
    el(
      'div',
      { class: 'facets' },
      facet('drivers', 'drivers', detail.drivers),
      facet('cards', 'cards', detail.cards),
      facet('preemption', 'preempts', detail.preempts),
      facet('load', 'loads', detail.loads),
      facet('capture backend', 'captureBackends', detail.captureBackends),
      facet('breakdown class (flight recorder)', 'breakdownClasses', detail.breakdownClasses),
    ),
    el('h2', {}, text('Stacks')),
    renderFlameGraph(flame, 'Its stacks, outermost frame on top (width = incidents)'),
    ...stacks,
    el('p', {}, el('a', { href: pageLink('/', filter) }, text('back to the fleet ranking'))),
  ]);
}
