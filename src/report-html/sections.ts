// The report's text sections: the conclusion, the facts table, the collapsible event list.
// Every string from the input is escaped by the markup builder.
import { el, text } from './markup.js';
import type { EventView, RunView } from './report-view.js';

/** Events beyond this many per run are counted but not listed (a pasted log can hold thousands). */
export const MAX_LISTED_EVENTS = 500;

/** The plain-language conclusion, suggestions, limitations and warnings of a run. */
export function renderConclusion(run: RunView): string {
  const blocks: string[] = [];
  if (run.conclusion.length > 0 || run.suggestions.length > 0) {
    blocks.push(
      el(
        'div',
        { class: 'conclusion' },
        ...run.conclusion.map((c) => el('p', {}, text(c))),
        run.suggestions.length > 0
          ? el('ul', {}, ...run.suggestions.map((s) => el('li', {}, text(s))))
          : '',
      ),
    );
  }
  if (run.limitations.length > 0) {
    blocks.push(
      el(
        'div',
        { class: 'conclusion limit' },
        el('p', {}, el('strong', {}, text('What this run could not see'))),
        el('ul', {}, ...run.limitations.map((s) => el('li', {}, text(s)))),
      ),
    );
  }
  if (run.warnings.length > 0) {
    blocks.push(
      el(
        'div',
        { class: 'conclusion warn' },
        el('p', {}, el('strong', {}, text('Warnings'))),
        el('ul', {}, ...run.warnings.map((s) => el('li', {}, text(s)))),
      ),
    );
  }
  return blocks.join('');
}

/** Facts as a two-column table; for two runs, one value column per run. */
export function renderFacts(runs: readonly Pick<RunView, 'label' | 'facts'>[]): string {
  const keys: string[] = [];
  for (const r of runs) for (const [k] of r.facts) if (!keys.includes(k)) keys.push(k);
  const head =
    runs.length > 1
      ? el(
          'thead',
          {},
          el('tr', {}, el('th', {}, ''), ...runs.map((r) => el('th', {}, text(r.label)))),
        )
      : '';
  const rows = keys.map((k) =>
    el(
      'tr',
      {},
      el('th', {}, text(k)),
      ...runs.map((r) => el('td', {}, text(r.facts.find(([fk]) => fk === k)?.[1] ?? '—'))),
    ),
  );
  return el('table', { class: 'facts' }, head, el('tbody', {}, ...rows));
}

/** Offender name as users read it: "function [module]" or the class when not kernel code. */
export function offenderName(
  e: Pick<EventView, 'offenderClass' | 'offenderFunction' | 'offenderModule'>,
): string {
  if (e.offenderClass !== 'kernel') {
    return (
      { idle: 'idle (CPU was idle)', user: 'user space', none: 'no offender found' }[
        e.offenderClass
      ] ?? e.offenderClass
    );
  }
  const fn = e.offenderFunction ?? '?';
  return e.offenderModule ? `${fn} [${e.offenderModule}]` : fn;
}

/** Index of the frame to highlight: the offender's function (first match), or null. */
export function offenderFrameIndex(frames: readonly string[], fn: string | null): number | null {
  if (fn === null) return null;
  const i = frames.findIndex((f) => f === fn || f.startsWith(`${fn} `));
  return i >= 0 ? i : null;
}

function describeTime(e: EventView): string {
  if (e.sessionMs !== null) return `at ${(e.sessionMs / 1000).toFixed(2)} s`;
  if (e.kernelTime !== null) return `kernel time ${e.kernelTime.toFixed(6)}`;
  return '';
}

/** One event as a `<details>`: summary line, then the normalised stack with the offender marked. */
export function renderEvent(e: EventView, n: number): string {
  const hit = e.offenderFrame ?? -1;
  const summary = [
    `#${n}`,
    e.kind,
    e.pcm ?? '',
    describeTime(e),
    e.line !== null ? `(${e.source ? `${e.source}:` : 'line '}${e.line})` : '',
    e.phase ? `during ${e.phase}` : '',
    '—',
  ]
    .filter((s) => s !== '')
    .join(' ');
  return el(
    'details',
    { class: 'event', 'data-signature': e.signature ?? '', 'data-class': e.offenderClass },
    el(
      'summary',
      {},
      text(`${summary} `),
      el('span', { class: 'cls' }, text(e.offenderClass)),
      ' ',
      el('code', {}, text(offenderName(e))),
    ),
    e.frames.length > 0
      ? el(
          'ol',
          {},
          ...e.frames.map((f, i) => el('li', {}, i === hit ? el('mark', {}, text(f)) : text(f))),
        )
      : el('p', { class: 'empty' }, text('no stack was printed for this event')),
    e.signature ? el('p', { class: 'mono' }, text(`signature: ${e.signature}`)) : '',
  );
}

/** The event list of one run, with the expand/collapse toolbar. */
export function renderEvents(run: RunView, withToolbar: boolean): string {
  if (run.events.length === 0) {
    return el('p', { class: 'empty' }, text('No kernel XRUN events were captured.'));
  }
  const shown = run.events.slice(0, MAX_LISTED_EVENTS);
  const total = run.eventsTotal ?? run.events.length;
  return [
    withToolbar
      ? el(
          'div',
          { class: 'toolbar' },
          el('button', { type: 'button', id: 'expand-all' }, text('Expand all')),
          el('button', { type: 'button', id: 'collapse-all' }, text('Collapse all')),
          el(
            'button',
            { type: 'button', id: 'clear-filter', class: 'hidden' },
            text('Show all events'),
          ),
          el('span', { id: 'filter-state', class: 'sub' }, ''),
        )
      : '',
    ...shown.map((e, i) => renderEvent(e, i + 1)),
    total > shown.length
      ? el('p', { class: 'empty' }, text(`${total - shown.length} more events not listed.`))
      : '',
  ].join('');
}
