// Privacy scrubbing (pure): a bundle leaves the machine without the hostname, user names,
// home paths or network addresses, replaced by fixed placeholders so the remaining text
// (device names, warnings, frames) still reads naturally. The shell passes the names it
// knows (os.hostname(), the login user); generic patterns catch the rest.
import type { Bundle } from './schema.js';

/** Names known to identify this machine or person (from the shell: hostname, user). */
export interface ScrubKnown {
  hostnames: string[];
  users: string[];
}

export const PLACEHOLDERS = {
  host: '<host>',
  user: '<user>',
  home: '/home/<user>',
  ip: '<ip>',
  mac: '<mac>',
} as const;

// Top-level fields that are identifiers or enums xrunhunt itself wrote: never rewritten.
const KEEP_TOP = new Set([
  'formatVersion',
  'tool',
  'kind',
  'createdAt',
  'machineId',
  'rulesVersion',
]);

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const MAC_RE = /\b(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}\b/gi;
const IPV4_RE = /\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b/g;
// Full 8-group form, or a compressed form with "::" and at least one group (so clock
// times like 12:34:56 are not mistaken for addresses).
const IPV6_RE =
  /(?<![\w:])(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*)?|::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4})*))(?![\w:])/gi;
const HOME_RE = /\/(?:home|Users)\/[^/\s'"`:,;)\]]+/g;
const ROOT_HOME_RE = /(?<![\w.-])\/root(?=\/|\b|$)/g;
// Fully qualified host names: at least host.domain.tld with a common or private TLD.
const FQDN_RE =
  /\b[a-z0-9](?:[a-z0-9-]{0,62})(?:\.[a-z0-9-]{1,63})+\.(?:com|org|net|edu|gov|io|de|uk|fr|nl|se|fi|no|it|es|pl|cz|ru|jp|cn|br|ca|au|ch|at|be|dk|local|lan|home|internal|localdomain|corp|intra)\b/gi;

/** Replaces identifying substrings in one string; exported for log excerpts and warnings. */
export function scrubText(text: string, known: ScrubKnown = { hostnames: [], users: [] }): string {
  let s = text.replace(HOME_RE, PLACEHOLDERS.home).replace(ROOT_HOME_RE, PLACEHOLDERS.home);
  s = s.replace(MAC_RE, PLACEHOLDERS.mac).replace(IPV6_RE, PLACEHOLDERS.ip);
  s = s.replace(IPV4_RE, PLACEHOLDERS.ip).replace(FQDN_RE, PLACEHOLDERS.host);
  // Longest first so "box.lan" wins over "box".
  const hosts = [...known.hostnames]
    .filter((h) => h.length >= 2)
    .sort((a, b) => b.length - a.length);
  for (const h of hosts) {
    s = s.replace(new RegExp(`(?<![\\w-])${escapeRe(h)}(?![\\w-])`, 'gi'), PLACEHOLDERS.host);
  }
  const users = known.users.filter((u) => u.length >= 2 && u !== 'root');
  for (const u of users) {
    s = s.replace(new RegExp(`(?<![\\w-])${escapeRe(u)}(?![\\w-])`, 'g'), PLACEHOLDERS.user);
  }
  return s;
}

function walk(v: unknown, known: ScrubKnown): unknown {
  if (typeof v === 'string') return scrubText(v, known);
  if (Array.isArray(v)) return v.map((x) => walk(x, known));
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x, known);
    return out;
  }
  return v;
}

/**
 * Returns a copy of the bundle with identifying text replaced and `scrubbed: true`; the
 * input is not modified. Exists because bundles are meant to be mailed and uploaded.
 */
export function scrubBundle(
  bundle: Bundle,
  known: ScrubKnown = { hostnames: [], users: [] },
): Bundle {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(bundle)) {
    out[k] = KEEP_TOP.has(k) ? structuredClone(v) : walk(v, known);
  }
  out['scrubbed'] = true;
  return out as unknown as Bundle;
}
