// The catalogue of ALSA PCM-core diagnostics (src/analysis/catalogue/pcm-messages.json), read
// from the kernel's own sources of every era: parsed and validated at load (entry-named
// errors), compiled into matchers that recognise a message whole, or as the first part of a
// message that a mailer or terminal wrapped at a space. Pure except loadMessageCatalogue().
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage, XrunhuntError } from '../errors.js';
import type { EventKind } from './types.js';

/** xrun / hw_ptr_error / invalid_position start an event; context and note lines never do. */
export type CatalogueKind = EventKind | 'context' | 'note';

/** What a `%s` (or `%c`) conversion of a format can hold. */
export type StringFieldType =
  | 'pcm-name'
  | 'pcm-name-or-empty'
  | 'qp-tag'
  | 'q-tag'
  | 'qp-char'
  | 'direction'
  | 'word'
  | 'source-path';

export interface CatalogueEntry {
  id: string;
  kind: CatalogueKind;
  /** The printf format as written in the source (no trailing newline). */
  format: string;
  /** Literal text that identifies the message even when its end is cut off. */
  anchor: string;
  fields: string[];
  strings: Record<string, StringFieldType>;
  /** Printk-helper prefixes this message is printed with (ids in `prefixes`). */
  prefixes: string[];
  first: string;
  last: string;
  seen: string[];
  debugOff: string;
  rateLimit: string;
  level: string;
  provenance: string;
}

export interface CataloguePrefix {
  id: string;
  format: string;
  strings: Record<string, StringFieldType>;
  fields: string[];
  first: string;
  last: string;
  helper: string;
  provenance: string;
}

export interface MessageCatalogue {
  version: string;
  prefixes: CataloguePrefix[];
  entries: CatalogueEntry[];
}

const KINDS: readonly CatalogueKind[] = [
  'xrun',
  'hw_ptr_error',
  'invalid_position',
  'context',
  'note',
];
const STRING_TYPES: Record<StringFieldType, string> = {
  'pcm-name': String.raw`pcmC\d+D\d+[pc](?::\d+)?`,
  'pcm-name-or-empty': String.raw`(?:pcmC\d+D\d+[pc](?::\d+)?)?`,
  // "[Q] " from the period interrupt, "[P]" (no space, 2.6.34–3.18) from a position query.
  'qp-tag': String.raw`(?:\[[QP]\] ?)?`,
  'q-tag': String.raw`(?:\[[QP]\] ?)?`,
  'qp-char': '[QP]',
  direction: '[pc]',
  word: String.raw`\S+?`,
  'source-path': String.raw`\S+?`,
};
const CONVERSION_RE = /%(l{0,2})([diuxcs%])/g;

function fail(source: string, where: string, message: string): never {
  throw new XrunhuntError('format', `${source}: ${where}: ${message}`, {
    hint: 'the message catalogue ships with xrunhunt; reinstall it, or fix the entry named above',
  });
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * One format as a list of atoms: literal text, conversions, and the spaces between them
 * (a space is where a line may have been wrapped). Returns the regex source of each atom.
 */
interface Atom {
  re: string;
  /** A space of the format: a place where the printed line may be broken. */
  space: boolean;
  /** Contains literal (non-conversion) text. */
  literal: boolean;
}

function formatAtoms(
  format: string,
  strings: Record<string, StringFieldType>,
  fields: string[],
  source: string,
  where: string,
): Atom[] {
  const atoms: Atom[] = [];
  let fieldIndex = 0;
  let last = 0;
  const pushLiteral = (text: string): void => {
    for (const part of text.split(/( +)/)) {
      if (part.length === 0) continue;
      if (part.startsWith(' ')) atoms.push({ re: String.raw`\s+`, space: true, literal: false });
      else atoms.push({ re: escapeRe(part), space: false, literal: true });
    }
  };
  CONVERSION_RE.lastIndex = 0;
  for (let m = CONVERSION_RE.exec(format); m; m = CONVERSION_RE.exec(format)) {
    pushLiteral(format.slice(last, m.index));
    last = m.index + m[0].length;
    const conv = m[2]!;
    if (conv === '%') {
      atoms.push({ re: '%', space: false, literal: true });
      continue;
    }
    const name = fields[fieldIndex++];
    if (name === undefined) fail(source, where, `format has more conversions than fields`);
    let re: string;
    if (conv === 's' || conv === 'c') {
      const type = strings[name];
      if (type === undefined) {
        if (conv === 'c') re = String.raw`\S`;
        else fail(source, where, `%s field "${name}" has no type in "strings"`);
      } else {
        re = STRING_TYPES[type];
        if (re === undefined) fail(source, where, `unknown string type "${String(type)}"`);
      }
    } else if (conv === 'x') re = '[0-9a-fA-F]+';
    else re = String.raw`-?\d+`;
    atoms.push({ re, space: false, literal: false });
    // A tag that may end in a space ("[Q] ") is itself a place where the line may break.
    const t = strings[name];
    if (t === 'qp-tag' || t === 'q-tag')
      atoms.push({ re: String.raw`\s*`, space: true, literal: false });
  }
  pushLiteral(format.slice(last));
  if (fieldIndex !== fields.length)
    fail(source, where, `${fields.length} fields named but the format has ${fieldIndex}`);
  return atoms;
}

const ID_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

function str(o: Record<string, unknown>, key: string, source: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string' || v.length === 0) fail(source, where, `"${key}" must be a string`);
  return v;
}

function strList(o: Record<string, unknown>, key: string, source: string, where: string): string[] {
  const v = o[key];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    fail(source, where, `"${key}" must be a list of strings`);
  return v as string[];
}

function stringTypes(
  o: Record<string, unknown>,
  source: string,
  where: string,
): Record<string, StringFieldType> {
  const v = o['strings'];
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    fail(source, where, `"strings" must be an object`);
  const out: Record<string, StringFieldType> = {};
  for (const [k, t] of Object.entries(v as Record<string, unknown>)) {
    if (typeof t !== 'string' || !(t in STRING_TYPES))
      fail(source, where, `string field "${k}" has unknown type ${JSON.stringify(t)}`);
    out[k] = t as StringFieldType;
  }
  return out;
}

/** Parses and validates the catalogue text; errors name the entry and what is wrong. */
export function parseMessageCatalogue(
  text: string,
  source = 'pcm-messages.json',
): MessageCatalogue {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    fail(source, 'JSON', errorMessage(err));
  }
  if (typeof doc !== 'object' || doc === null) fail(source, 'top level', 'expected an object');
  const d = doc as Record<string, unknown>;
  const version = str(d, 'catalogueVersion', source, 'top level');
  if (!/^\d+\.\d+\.\d+$/.test(version)) fail(source, 'catalogueVersion', 'expected N.N.N');
  if (!Array.isArray(d['prefixes']) || !Array.isArray(d['entries']))
    fail(source, 'top level', '"prefixes" and "entries" must be lists');
  const prefixes: CataloguePrefix[] = (d['prefixes'] as unknown[]).map((p, i) => {
    const where = `prefixes[${i}]`;
    if (typeof p !== 'object' || p === null) fail(source, where, 'expected an object');
    const o = p as Record<string, unknown>;
    const id = str(o, 'id', source, where);
    const w = `prefix ${id}`;
    const pre: CataloguePrefix = {
      id,
      format: str(o, 'format', source, w),
      strings: stringTypes(o, source, w),
      fields: strList(o, 'fields', source, w),
      first: str(o, 'first', source, w),
      last: str(o, 'last', source, w),
      helper: str(o, 'helper', source, w),
      provenance: str(o, 'provenance', source, w),
    };
    formatAtoms(pre.format, pre.strings, pre.fields, source, w);
    return pre;
  });
  const prefixIds = new Set(prefixes.map((p) => p.id));
  const ids = new Set<string>();
  const entries: CatalogueEntry[] = (d['entries'] as unknown[]).map((e, i) => {
    const where = `entries[${i}]`;
    if (typeof e !== 'object' || e === null) fail(source, where, 'expected an object');
    const o = e as Record<string, unknown>;
    const id = str(o, 'id', source, where);
    const w = `entry ${id}`;
    if (!ID_RE.test(id)) fail(source, w, 'id must be lower-case words joined by -');
    if (ids.has(id)) fail(source, w, 'duplicate id');
    ids.add(id);
    const kind = str(o, 'kind', source, w) as CatalogueKind;
    if (!KINDS.includes(kind)) fail(source, w, `kind must be one of ${KINDS.join(', ')}`);
    const entry: CatalogueEntry = {
      id,
      kind,
      format: str(o, 'format', source, w),
      anchor: str(o, 'anchor', source, w),
      fields: strList(o, 'fields', source, w),
      strings: stringTypes(o, source, w),
      prefixes: strList(o, 'prefixes', source, w),
      first: str(o, 'first', source, w),
      last: str(o, 'last', source, w),
      seen: strList(o, 'seen', source, w),
      debugOff: str(o, 'debugOff', source, w),
      rateLimit: str(o, 'rateLimit', source, w),
      level: str(o, 'level', source, w),
      provenance: str(o, 'provenance', source, w),
    };
    for (const p of entry.prefixes) if (!prefixIds.has(p)) fail(source, w, `unknown prefix "${p}"`);
    if (!/@|log|string search/.test(entry.provenance))
      fail(
        source,
        w,
        'provenance must name file@version, a log, or the string search it came from',
      );
    formatAtoms(entry.format, entry.strings, entry.fields, source, w);
    // The anchor must be text the message really prints: it is what identifies a cut-off line.
    const literalText = entry.format.replace(CONVERSION_RE, '\u0000');
    if (!literalText.split('\u0000').some((part) => part.includes(entry.anchor)))
      fail(source, w, `anchor "${entry.anchor}" is not literal text of the format`);
    return entry;
  });
  return { version, prefixes, entries };
}

/** A catalogue entry compiled into matchers. */
export interface CompiledEntry {
  entry: CatalogueEntry;
  /** The whole message, anywhere after a word start, to the end of the text. */
  whole: RegExp;
  /** The message cut after each of its spaces (first part of a wrapped line). */
  cuts: RegExp[];
  /** Index in `cuts` from which the cut text contains the anchor. */
  anchoredFrom: number;
  /** Captures the pcm name (group 1) when the message names one. */
  pcmGroup: boolean;
}

export interface CompiledCatalogue {
  catalogue: MessageCatalogue;
  entries: CompiledEntry[];
  /** The first part of an ALSA file-path prefix, cut at one of its spaces (`ALSA`, `ALSA file:line:`). */
  prefixCuts: RegExp[];
  /** Cheap substrings: a line without any of them cannot be (the start of) a catalogued message. */
  needles: string[];
  /** The needles as one regular expression. */
  needleRe: RegExp;
}

// A message starts the line or follows a space or a colon (after a prefix of any helper).
const START = String.raw`(?:^|[\s:])`;

function atomsSource(atoms: Atom[], entry: CatalogueEntry): { src: string; pcmGroup: boolean } {
  let pcmGroup = false;
  const parts = atoms.map((a) => a.re);
  // Capture the first pcm-name conversion.
  const nameField = entry.fields.find((f) => {
    const t = entry.strings[f];
    return t === 'pcm-name' || t === 'pcm-name-or-empty';
  });
  if (nameField !== undefined) {
    const t = entry.strings[nameField]!;
    const i = parts.indexOf(STRING_TYPES[t]);
    if (i >= 0) {
      parts[i] = `(${STRING_TYPES[t]})`;
      pcmGroup = true;
    }
  }
  return { src: parts.join(''), pcmGroup };
}

/** Compiles every entry and the prefix forms into matchers. */
export function compileCatalogue(catalogue: MessageCatalogue): CompiledCatalogue {
  const entries: CompiledEntry[] = catalogue.entries.map((entry) => {
    const atoms = formatAtoms(entry.format, entry.strings, entry.fields, 'catalogue', entry.id);
    const { src, pcmGroup } = atomsSource(atoms, entry);
    const whole = new RegExp(`${START}${src}\\s*$`);
    const cuts: RegExp[] = [];
    let anchoredFrom = -1;
    let sawLiteral = false;
    atoms.forEach((a, i) => {
      if (a.literal && /[A-Za-z]{2}/.test(a.re)) sawLiteral = true;
      if (!a.space || !sawLiteral || i === atoms.length - 1) return;
      const head = atomsSource(atoms.slice(0, i), entry).src;
      const text = atoms
        .slice(0, i)
        .map((x) => (x.literal ? x.re.replace(/\\(.)/g, '$1') : ' '))
        .join('');
      if (anchoredFrom < 0 && text.includes(entry.anchor)) anchoredFrom = cuts.length;
      cuts.push(new RegExp(`${START}${head}\\s*$`));
    });
    if (anchoredFrom < 0) anchoredFrom = cuts.length;
    return { entry, whole, cuts, anchoredFrom, pcmGroup };
  });
  const prefixCuts = [/^ALSA\s*$/, /^ALSA \S+:\d+:?\s*$/];
  // Needles: every anchor whole (distinctive: `hw_ptr skipping`, not `hw_ptr`, which every
  // snd_pcm_update_hw_ptr0 frame contains), the first word of each event message that starts
  // with literal text (`XRUN:`, `Unexpected`, `PCM:` — a wrapped first part may hold only
  // that), and `ALSA` for a wrap inside the file-path prefix.
  const needles = new Set<string>(['ALSA']);
  for (const e of catalogue.entries) {
    needles.add(e.anchor.trim());
    if (e.kind === 'context' || e.kind === 'note') continue;
    if (e.format.startsWith('%')) {
      // Vendor lines (`xrun: [0]occured XRUN!`): any word of the anchor may start a wrapped part.
      for (const w of e.anchor.split(' ')) if (/[A-Za-z]{4}/.test(w)) needles.add(w);
      continue;
    }
    const first = e.format.split(' ')[0]!;
    if (!first.includes('%')) needles.add(first);
  }
  const needleRe = new RegExp([...needles].map(escapeRe).join('|'));
  return { catalogue, entries, prefixCuts, needles: [...needles], needleRe };
}

const DEFAULT_FILE = fileURLToPath(new URL('./catalogue/pcm-messages.json', import.meta.url));
let cached: CompiledCatalogue | undefined;

/** Reads, validates and compiles the shipped catalogue once (src/ under tsx, dist/ after copy-assets). */
export function loadMessageCatalogue(file: string = DEFAULT_FILE): CompiledCatalogue {
  if (file === DEFAULT_FILE && cached) return cached;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new XrunhuntError(
      'internal',
      `cannot read the message catalogue ${file}: ${String(err)}`,
      {
        hint: 'reinstall xrunhunt: the catalogue ships next to the code (dist/analysis/catalogue)',
      },
    );
  }
  const compiled = compileCatalogue(parseMessageCatalogue(text, file));
  if (file === DEFAULT_FILE) cached = compiled;
  return compiled;
}

/**
 * Substrings for the IO shell's idle fast path: a line containing none of them cannot start
 * a catalogued header (a line holding only a `driver device:` prefix is the one exception;
 * its continuation carries a needle and is matched on its own).
 */
export function catalogueTriggerNeedles(): string[] {
  return loadMessageCatalogue().needles;
}
