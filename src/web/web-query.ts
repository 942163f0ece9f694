// Pure: the web view's query string ⇄ a FleetFilter. URLs are the state of every page (a
// link to a filtered ranking is shareable); the pages and the JSON API parse them here, so
// both answer the same question. Bad values are user errors saying what was expected.
import { BUNDLE_OFFENDER_CLASSES, MAX_TEXT, type BundleOffenderClass } from '../bundle/schema.js';
import { BREAKDOWN_CLASSES, type BundleBreakdownClass } from '../bundle/schema-breakdown.js';
import { XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import type { FleetFilter } from './fleet-reader.js';

/** Query-string names of the filters (repeat a name for "any of"). */
export const FILTER_PARAMS = {
  kernelReleases: 'kernel',
  preempts: 'preempt',
  drivers: 'driver',
  cards: 'card',
  captureBackends: 'backend',
  offenderClasses: 'class',
  breakdownClasses: 'breakdown',
} as const;

type ListKey = keyof typeof FILTER_PARAMS;

const MAX_VALUES = 50;
const MAX_VALUE_CHARS = 300;
/** A signature is at most as long as a bundle may make it (longer matches nothing stored). */
const MAX_SIGNATURE_CHARS = MAX_TEXT;

// C0 controls and DEL: no page links to such a value (the pages show them as U+FFFD), and
// PostgreSQL refuses a NUL in any text parameter (a 500 before this check).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function badParam(name: string, found: string, expected: string): XrunhuntError {
  return new XrunhuntError(
    'input',
    `bad query parameter ${name}=${quoteUntrusted(found, 80)}: expected ${expected}`,
    {
      hint: 'remove it from the address, or pick a value from the filter controls',
    },
  );
}

/** A day (2026-03-01) or an ISO instant as ms since the epoch. */
function parseInstant(name: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || !Number.isFinite(ms)) {
    throw badParam(name, text, 'a date like 2026-03-01 or an ISO time like 2026-03-01T12:00:00Z');
  }
  return ms;
}

/**
 * Refuses a query whose parameter values hold control characters: the one check every value
 * passes before it is parsed or reaches a database, whichever parameter it is.
 */
export function checkQueryText(q: URLSearchParams): void {
  for (const [name, value] of q) {
    if (CONTROL.test(value) || CONTROL.test(name))
      throw badParam(quoteUntrusted(name, 40), value, 'text without control characters');
  }
}

/** The signature parameter (sig=): required, bounded, checked like every other value. */
export function parseSignature(q: URLSearchParams): string {
  checkQueryText(q);
  const s = q.get('sig');
  if (!s)
    throw new XrunhuntError('input', 'this page needs sig=SIGNATURE', {
      hint: 'follow a link from the fleet ranking',
    });
  if (s.length > MAX_SIGNATURE_CHARS)
    throw badParam('sig', s, `at most ${MAX_SIGNATURE_CHARS} characters`);
  return s;
}

/** Parses the filter of a page or API request; throws XrunhuntError on a bad value. */
export function parseFilter(q: URLSearchParams): FleetFilter {
  checkQueryText(q);
  const filter: FleetFilter = {};
  for (const key of Object.keys(FILTER_PARAMS) as ListKey[]) {
    const name = FILTER_PARAMS[key];
    const values = [...new Set(q.getAll(name).filter((v) => v !== ''))];
    if (values.length > MAX_VALUES)
      throw badParam(name, values[0]!, `at most ${MAX_VALUES} values`);
    const long = values.find((v) => v.length > MAX_VALUE_CHARS);
    if (long !== undefined) throw badParam(name, long, `at most ${MAX_VALUE_CHARS} characters`);
    if (values.length === 0) continue;
    if (key === 'offenderClasses') {
      const bad = values.find((v) => !(BUNDLE_OFFENDER_CLASSES as readonly string[]).includes(v));
      if (bad !== undefined)
        throw badParam(name, bad, `one of ${BUNDLE_OFFENDER_CLASSES.join(', ')}`);
      filter.offenderClasses = values as BundleOffenderClass[];
    } else if (key === 'breakdownClasses') {
      const bad = values.find((v) => !(BREAKDOWN_CLASSES as readonly string[]).includes(v));
      if (bad !== undefined) throw badParam(name, bad, `one of ${BREAKDOWN_CLASSES.join(', ')}`);
      filter.breakdownClasses = values as BundleBreakdownClass[];
    } else filter[key] = values;
  }
  const since = q.get('since');
  if (since) filter.sinceMs = parseInstant('since', since);
  const until = q.get('until');
  if (until) filter.untilMs = parseInstant('until', until);
  return filter;
}

/** A whole number parameter in [min, max], or `fallback` when absent. */
export function parseCount(
  q: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = q.get(name);
  if (text === null || text === '') return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw badParam(name, text, `a whole number from ${min} to ${max}`);
  return n;
}

const dayOrInstant = (ms: number): string => {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
};

/** The query string of a filter (no leading '?'), in a stable order: what links carry. */
export function filterQuery(filter: FleetFilter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const key of Object.keys(FILTER_PARAMS) as ListKey[]) {
    for (const v of filter[key] ?? []) q.append(FILTER_PARAMS[key], v);
  }
  if (filter.sinceMs != null) q.set('since', dayOrInstant(filter.sinceMs));
  if (filter.untilMs != null) q.set('until', dayOrInstant(filter.untilMs));
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q.toString();
}
