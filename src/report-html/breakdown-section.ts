// The HTML report's latency breakdown section (flight recorder, bundle format 2): classes and
// blockers of the run's summary as tables, then each explained XRUN as the session's own text
// lines (recorder/breakdown-text.ts). Pure; every string goes through text() (escaped).
import { breakdownLines } from '../recorder/breakdown-text.js';
import { summarizeBreakdowns, type BreakdownSummary } from '../recorder/breakdown-summary.js';
import type { XrunBreakdown } from '../recorder/breakdown-types.js';
import { el, text } from './markup.js';

/** The most XRUN breakdowns listed one by one (the summary covers all). */
export const MAX_LISTED_BREAKDOWNS = 20;

/** What the section shows: the run's summary and its breakdowns (all, or the first few). */
export interface BreakdownView {
  summary: BreakdownSummary;
  breakdowns: XrunBreakdown[];
}

/** A view from breakdowns (null when there are none), with a summary given or computed. */
export function breakdownView(
  breakdowns: readonly XrunBreakdown[],
  summary?: BreakdownSummary,
): BreakdownView | null {
  if (breakdowns.length === 0 && (summary?.xruns ?? 0) === 0) return null;
  return {
    summary: summary ?? summarizeBreakdowns(breakdowns),
    breakdowns: breakdowns.slice(0, MAX_LISTED_BREAKDOWNS),
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/** Renders the section (headings, tables, the per-XRUN text). */
export function renderBreakdown(v: BreakdownView): string[] {
  const s = v.summary;
  const classes = Object.entries(s.byClass)
    .filter(([, n]) => (n ?? 0) > 0)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0));
  const row = (cells: (string | number)[], num: boolean[] = []): string =>
    el('tr', {}, ...cells.map((c, i) => el('td', num[i] ? { class: 'num' } : {}, text(c))));
  return [
    el('h2', { id: 'breakdown' }, text('Latency breakdown (flight recorder)')),
    el(
      'p',
      { class: 'sub' },
      text(
        `${s.xruns} XRUN breakdowns, ${s.complete} complete (${pct(s.completeShare)}), mean lateness ${s.meanLatenessMs.toFixed(2)} ms. Each splits one XRUN's lateness into net parts that add up to 100 % (docs/recorder.md "Reading a breakdown").`,
      ),
    ),
    el(
      'table',
      { 'data-table': 'breakdown-classes' },
      el('thead', {}, el('tr', {}, el('th', {}, text('class')), el('th', {}, text('XRUNs')))),
      el('tbody', {}, ...classes.map(([c, n]) => row([c, n ?? 0], [false, true]))),
    ),
    el(
      'table',
      { 'data-table': 'breakdown-blockers' },
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['share', 'net ms', 'kind', 'blocker', 'in XRUNs', 'largest in'].map((h) =>
            el('th', {}, text(h)),
          ),
        ),
      ),
      el(
        'tbody',
        {},
        ...s.blockers.map((b) =>
          row(
            [
              pct(b.share),
              b.totalMs.toFixed(3),
              b.kind,
              `${b.name}${b.prio !== undefined ? ` (prio ${b.prio})` : ''}`,
              b.count,
              b.topCount,
            ],
            [true, true, false, false, true, true],
          ),
        ),
      ),
    ),
    ...v.breakdowns.map((b) =>
      el(
        'pre',
        { class: 'breakdown', 'data-breakdown': b.cls },
        text(breakdownLines(b).join('\n')),
      ),
    ),
    s.xruns > v.breakdowns.length
      ? el(
          'p',
          { class: 'sub' },
          text(`${s.xruns - v.breakdowns.length} more breakdowns are in the summary above.`),
        )
      : '',
  ];
}
