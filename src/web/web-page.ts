// Pure: the frame of every web view page: head (stylesheet and script from /assets/, no
// inline code, so the Content-Security-Policy can forbid inline script), the navigation
// that keeps the current filter, and the filter form (a GET form: its URL is the state).
import { el, text } from '../report-html/markup.js';
import type { FilterValues, FleetFilter, ValueCount } from './fleet-reader.js';
import { FILTER_PARAMS, filterQuery } from './web-query.js';

export type PageName = 'fleet' | 'trend' | 'flame' | 'signature' | 'error';

const NAV: [PageName, string, string][] = [
  ['fleet', '/', 'Fleet ranking'],
  ['trend', '/trend', 'Trend by kernel'],
  ['flame', '/flame', 'Flame graph'],
];

/** A link to a page with a filter (and extra parameters), escaped by the element builder. */
export function pageLink(
  path: string,
  filter: FleetFilter,
  extra: Record<string, string> = {},
): string {
  const q = filterQuery(filter, extra);
  return q ? `${path}?${q}` : path;
}

/** "2026-03-01 14:05 UTC" */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** 0.0123 → "0.0123", 1234.5 → "1235": three significant digits, whole numbers kept. */
export function formatRate(v: number): string {
  if (v === 0) return '0';
  return v >= 1000 ? String(Math.round(v)) : String(Number(v.toPrecision(3)));
}

function select(
  label: string,
  name: string,
  values: readonly ValueCount[],
  chosen: readonly string[] | undefined,
): string {
  const picked = new Set(chosen ?? []);
  // A chosen value the store does not hold (an old link) stays visible and selected.
  const all = [
    ...values,
    ...[...picked]
      .filter((v) => !values.some((x) => x.value === v))
      .map((value) => ({ value, count: 0 })),
  ];
  return el(
    'label',
    {},
    text(label),
    el(
      'select',
      { name, multiple: picked.size > 1, 'data-filter': name },
      el('option', { value: '' }, text('all')),
      ...all.map((v) =>
        el(
          'option',
          { value: v.value, selected: picked.has(v.value) },
          text(`${v.value} (${v.count})`),
        ),
      ),
    ),
  );
}

const day = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '' : new Date(ms).toISOString().slice(0, 10);

/** The filter form; `keep` are hidden parameters the page needs (e.g. the signature). */
export function filterForm(
  action: string,
  filter: FleetFilter,
  values: FilterValues,
  keep: Record<string, string> = {},
): string {
  return el(
    'form',
    { id: 'filters', class: 'filters', method: 'get', action },
    ...Object.entries(keep).map(([name, value]) => el('input', { type: 'hidden', name, value })),
    select(
      'kernel release',
      FILTER_PARAMS.kernelReleases,
      values.kernelReleases,
      filter.kernelReleases,
    ),
    select('preemption', FILTER_PARAMS.preempts, values.preempts, filter.preempts),
    select('driver', FILTER_PARAMS.drivers, values.drivers, filter.drivers),
    select('card', FILTER_PARAMS.cards, values.cards, filter.cards),
    select(
      'capture backend',
      FILTER_PARAMS.captureBackends,
      values.captureBackends,
      filter.captureBackends,
    ),
    select(
      'offender class',
      FILTER_PARAMS.offenderClasses,
      values.offenderClasses,
      filter.offenderClasses,
    ),
    select(
      'breakdown class',
      FILTER_PARAMS.breakdownClasses,
      values.breakdownClasses,
      filter.breakdownClasses,
    ),
    el(
      'label',
      {},
      text('since'),
      el('input', {
        type: 'date',
        name: 'since',
        value: day(filter.sinceMs),
        'data-filter': 'since',
      }),
    ),
    el(
      'label',
      {},
      text('until'),
      el('input', {
        type: 'date',
        name: 'until',
        value: day(filter.untilMs),
        'data-filter': 'until',
      }),
    ),
    el('button', { type: 'submit' }, text('Apply')),
    el('a', { href: pageLink(action, {}, keep) }, text('clear')),
  );
}

/** A whole page: head, navigation, body parts, footer. */
export function renderWebPage(
  title: string,
  here: PageName,
  filter: FleetFilter,
  body: string[],
): string {
  return (
    '<!doctype html>\n' +
    el(
      'html',
      { lang: 'en' },
      el(
        'head',
        {},
        el('meta', { charset: 'utf-8' }),
        el('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
        el('meta', { name: 'referrer', content: 'no-referrer' }),
        el('title', {}, text(`${title} — xrunhunt fleet`)),
        el('link', { rel: 'icon', href: '/assets/icon.svg', type: 'image/svg+xml' }),
        el('link', { rel: 'stylesheet', href: '/assets/web.css' }),
        el('script', { src: '/assets/web.js', defer: true }),
      ),
      el(
        'body',
        { 'data-page': here },
        el(
          'nav',
          { class: 'top' },
          el('span', { class: 'brand' }, text('xrunhunt fleet')),
          ...NAV.map(([name, path, label]) =>
            el(
              'a',
              { href: pageLink(path, filter), class: name === here ? 'here' : undefined },
              text(label),
            ),
          ),
        ),
        ...body,
        el(
          'footer',
          {},
          text('Read-only view of the fleet store. Machine ids are anonymous per-install ids.'),
        ),
      ),
    ) +
    '\n'
  );
}
