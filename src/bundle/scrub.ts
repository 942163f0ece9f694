// Privacy scrubbing (pure): a bundle folder leaves the machine without host names, user
// names, home folders, network and hardware addresses, serial numbers, UUIDs or e-mail
// addresses, each replaced by a fixed placeholder so the remaining text (device names,
// warnings, stack frames) still reads naturally. The shell passes what it knows
// (scrub-known.ts: host names, login names, serials read from /sys); generic patterns
// (scrub-patterns.ts) catch the rest. Compile once with createScrubber, then scrub as many
// strings, lines or bundles as needed.
import type { Bundle } from './schema.js';
import { GENERIC_RULES, HTML_PLACEHOLDERS, PLACEHOLDERS } from './scrub-patterns.js';
import type { Placeholders, ScrubRule } from './scrub-patterns.js';
import { compileNameRules } from './scrub-names.js';
import type { ScrubKnown } from './scrub-names.js';

export { PLACEHOLDERS, HTML_PLACEHOLDERS } from './scrub-patterns.js';
export type { ScrubKnown } from './scrub-names.js';

/** A compiled scrubber: the known names turned into patterns once, applied to any text. */
export interface Scrubber {
  /** Scrubs plain text (one line or many; no rule crosses a line break). */
  readonly text: (s: string) => string;
  /** Scrubs HTML source: the same rules, placeholders entity-escaped. */
  readonly html: (s: string) => string;
  /** Scrubs every string (keys too) of a JSON-like value; returns a new value. */
  readonly value: <T>(v: T) => T;
  /** The same for many values at once (one pass over all their strings: much faster). */
  readonly values: (vs: readonly unknown[]) => unknown[];
  /** Scrubs a bundle (identifiers xrunhunt wrote itself are kept) and marks it scrubbed. */
  readonly bundle: (b: Bundle) => Bundle;
}

// Top-level fields that are identifiers or enums xrunhunt itself wrote: never rewritten.
const KEEP_TOP = new Set([
  'formatVersion',
  'tool',
  'kind',
  'createdAt',
  'machineId',
  'rulesVersion',
]);

// JSON data blocks in HTML (`<script type="application/json">`): parsed and walked, because
// inside JSON a line break is the two letters "\n" and would glue onto the next word.
const JSON_SCRIPT_RE =
  /(<script\b[^>]*\btype=["']?application\/(?:ld\+)?json["']?[^>]*>)([^<]*(?:<(?!\/script)[^<]*)*)(<\/script>)/gi;

/** JSON for a script block that cannot close the element (as the HTML reports write it). */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const NO_NAMES: ScrubKnown = { hostnames: [], users: [] };

function run(rules: readonly ScrubRule[], s: string, ph: Placeholders): string {
  let out = s;
  for (const r of rules) out = r(out, ph);
  return out;
}

/** Compiles a scrubber for these known names; exists so per-line scrubbing compiles once. */
export function createScrubber(known: ScrubKnown = NO_NAMES): Scrubber {
  const rules: ScrubRule[] = [...GENERIC_RULES, ...compileNameRules(known)];
  const text = (s: string): string => run(rules, s, PLACEHOLDERS);
  // Values are scrubbed in one pass over all their strings joined by line breaks (no rule
  // crosses one, no placeholder holds one): twenty regex scans per batch instead of twenty
  // per string, which is what makes a 10 MB event log fast.
  const collect = (v: unknown, acc: string[]): void => {
    if (typeof v === 'string') acc.push(v);
    else if (Array.isArray(v)) for (const x of v) collect(x, acc);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        acc.push(k);
        collect(x, acc);
      }
    }
  };
  const rebuild = (v: unknown, next: () => string): unknown => {
    if (typeof v === 'string') return next();
    if (Array.isArray(v)) return v.map((x) => rebuild(x, next));
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [, x] of Object.entries(v)) {
        let k = next();
        // Two keys scrubbed to the same placeholder must not overwrite each other.
        for (let n = 2; Object.hasOwn(out, k); n++) k = `${k.replace(/#\d+$/, '')}#${n}`;
        out[k] = rebuild(x, next);
      }
      return out;
    }
    return v;
  };
  const strings = (xs: readonly string[]): string[] => {
    if (xs.length === 0) return [];
    const lines = text(xs.join('\n')).split('\n');
    const out: string[] = [];
    let at = 0;
    for (const x of xs) {
      let n = 1;
      for (let i = x.indexOf('\n'); i !== -1; i = x.indexOf('\n', i + 1)) n++;
      out.push(lines.slice(at, at + n).join('\n'));
      at += n;
    }
    // A rule that changed the number of lines would misalign everything: never trust it.
    return at === lines.length ? out : xs.map(text);
  };
  const values = (vs: readonly unknown[]): unknown[] => {
    const acc: string[] = [];
    for (const v of vs) collect(v, acc);
    const clean = strings(acc);
    let i = 0;
    const next = (): string => clean[i++]!;
    return vs.map((v) => rebuild(v, next));
  };
  const walk = (v: unknown): unknown => values([v])[0];
  const htmlText = (s: string): string => run(rules, s, HTML_PLACEHOLDERS);
  const html = (s: string): string => {
    if (!s.includes('<script')) return htmlText(s);
    let out = '';
    let last = 0;
    for (const m of s.matchAll(JSON_SCRIPT_RE)) {
      let body: string;
      try {
        body = jsonForScript(walk(JSON.parse(m[2]!) as unknown));
      } catch {
        body = htmlText(m[2]!);
      }
      out += htmlText(s.slice(last, m.index)) + m[1]! + body + m[3]!;
      last = m.index + m[0].length;
    }
    return out + htmlText(s.slice(last));
  };
  return {
    text,
    html,
    value: <T>(v: T): T => walk(v) as T,
    values,
    bundle: (b: Bundle): Bundle => {
      const entries = Object.entries(b).filter(([k]) => !KEEP_TOP.has(k));
      const clean = values(entries.map(([, v]) => v));
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(b)) out[k] = KEEP_TOP.has(k) ? structuredClone(v) : null;
      entries.forEach(([k], i) => (out[k] = clean[i]));
      out['scrubbed'] = true;
      return out as unknown as Bundle;
    },
  };
}

/** Replaces identifying substrings in one string; exported for log excerpts and warnings. */
export function scrubText(text: string, known: ScrubKnown = NO_NAMES): string {
  return createScrubber(known).text(text);
}

/**
 * Returns a copy of the bundle with identifying text replaced and `scrubbed: true`; the
 * input is not modified. Exists because bundles are meant to be mailed and uploaded.
 */
export function scrubBundle(bundle: Bundle, known: ScrubKnown = NO_NAMES): Bundle {
  return createScrubber(known).bundle(bundle);
}
