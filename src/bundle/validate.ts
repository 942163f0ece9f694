// Pure validation of a parsed bundle against the TypeBox schema of schema.ts (the one
// source of the format): every field checked, the first problem reported with its path and
// the value found ("bundle X: phases[2].endMs: expected a number, found "abc""), and a clean
// copy rebuilt in the schema's property order (unknown properties dropped, configFlags
// sorted), so a validated bundle's JSON text is canonical (bundleHash). The schema is
// turned into a tree of checking closures once; the rules JSON Schema cannot say (a date,
// endMs ≥ startMs, an index into events) follow the schema walk.
// Older format versions are upgraded first (upgrade.ts); newer ones are refused.
import { Kind, OptionalKind, type TSchema } from '@sinclair/typebox';
import { XrunhuntError } from '../errors.js';
import { BundleSchema, MACHINE_ID_PATTERN, type Bundle } from './schema.js';
import { upgradeBundle } from './upgrade.js';
import { breakdownRules } from './validate-breakdown.js';
import { escapeControlChars } from '../text/untrusted-text.js';

type Obj = Record<string, unknown>;

/** Thrown internally with the path of the offending value. */
class Invalid extends Error {
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`${path}: ${what}`);
  }
}

/** Shows a found value briefly: strings quoted, long values cut, types named. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') {
    const s = v.length > 40 ? `${v.slice(0, 40)}…` : v;
    // JSON.stringify escapes C0 controls; C1 (8-bit CSI) and bidi overrides need this too.
    return escapeControlChars(JSON.stringify(s));
  }
  return String(v);
}

const fail = (path: string, expected: string, found: unknown): never => {
  throw new Invalid(path, `expected ${expected}, found ${describeValue(found)}`);
};

/** What a pattern means, in words, for the error message. */
const PATTERN_MEANING: Record<string, string> = {
  [MACHINE_ID_PATTERN]: 'letters, digits, "-" or "_"',
};

/** Checks one value at a path and returns its clean copy. */
type Check = (v: unknown, path: string) => unknown;

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function objectCheck(schema: TSchema): Check {
  const props = Object.entries(schema['properties'] as Record<string, TSchema>).map(([key, s]) => ({
    key,
    optional: s[OptionalKind] === 'Optional',
    check: compile(s),
  }));
  return (v, path) => {
    if (!isObj(v)) return fail(path === '' ? '(top level)' : path, 'an object', v);
    const out: Obj = {};
    for (const p of props) {
      const x = v[p.key];
      if (p.optional && x === undefined) continue;
      out[p.key] = p.check(x, join(path, p.key));
    }
    return out;
  };
}

function stringCheck(schema: TSchema): Check {
  const maxLength = schema['maxLength'] as number | undefined;
  const pattern = schema['pattern'] as string | undefined;
  const re = pattern === undefined ? undefined : new RegExp(pattern);
  return (v, path) => {
    if (typeof v !== 'string') return fail(path, 'a string', v);
    if (maxLength !== undefined && v.length > maxLength) {
      return fail(path, `a string of at most ${maxLength} characters`, v);
    }
    if (re !== undefined && !re.test(v)) {
      return fail(path, PATTERN_MEANING[pattern!] ?? `text matching ${pattern}`, v);
    }
    return v;
  };
}

function numberCheck(schema: TSchema, integer: boolean): Check {
  const min = schema['minimum'] as number | undefined;
  const max = schema['maximum'] as number | undefined;
  const tooBig = min === 0 && max === 1 ? 'a fraction from 0 to 1' : `a number ≤ ${max}`;
  return (v, path) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail(path, 'a number', v);
    if (min !== undefined && v < min) return fail(path, `a number ≥ ${min}`, v);
    if (max !== undefined && v > max) return fail(path, tooBig, v);
    if (integer && !Number.isInteger(v)) return fail(path, 'a whole number', v);
    return v;
  };
}

function unionCheck(schema: TSchema): Check {
  const members = schema['anyOf'] as TSchema[];
  if (members.every((m) => m[Kind] === 'Literal')) {
    const allowed = new Set(members.map((m) => m['const'] as unknown));
    const words = members.map((m) => String(m['const'])).join('|');
    return (v, path) => (allowed.has(v) ? v : fail(path, `one of ${words}`, v));
  }
  const nullable = members.some((m) => m[Kind] === 'Null');
  const rest = members.filter((m) => m[Kind] !== 'Null');
  if (rest.length !== 1)
    throw new Error(`schema: unsupported union of ${rest.length} non-null types`);
  const inner = compile(rest[0]!);
  return nullable ? (v, path) => (v === null ? null : inner(v, path)) : inner;
}

function recordCheck(schema: TSchema): Check {
  const valueSchemas = Object.values(schema['patternProperties'] as Record<string, TSchema>);
  const each = compile(valueSchemas[0]!);
  return (v, path) => {
    if (!isObj(v)) return fail(path, 'an object', v);
    const out: Obj = {};
    // Keys sorted: a validated bundle's JSON text is canonical (see bundleHash).
    for (const [k, x] of Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      out[k] = each(x, `${path}.${k}`);
    }
    return out;
  };
}

/** Turns a schema (the kinds schema.ts uses) into its checking closure. */
function compile(schema: TSchema): Check {
  switch (schema[Kind]) {
    case 'Object':
      return objectCheck(schema);
    case 'String':
      return stringCheck(schema);
    case 'Number':
      return numberCheck(schema, false);
    case 'Integer':
      return numberCheck(schema, true);
    case 'Boolean':
      return (v, path) => (typeof v === 'boolean' ? v : fail(path, 'true or false', v));
    case 'Null':
      return (v, path) => (v === null ? null : fail(path, 'null', v));
    case 'Literal': {
      const c = schema['const'] as unknown;
      return (v, path) => (v === c ? c : fail(path, JSON.stringify(c), v));
    }
    case 'Union':
      return unionCheck(schema);
    case 'Array': {
      const item = compile(schema['items'] as TSchema);
      const maxItems = schema['maxItems'] as number | undefined;
      return (v, path) => {
        if (!Array.isArray(v)) return fail(path, 'an array', v);
        if (maxItems !== undefined && v.length > maxItems) {
          return fail(path, `at most ${maxItems} items (the format's bound)`, v);
        }
        return v.map((x, i) => item(x, `${path}[${i}]`));
      };
    }
    case 'Record':
      return recordCheck(schema);
    default:
      throw new Error(`schema: unsupported kind ${String(schema[Kind])}`);
  }
}

const checkBundle = compile(BundleSchema);

/** The rules JSON Schema cannot say; run on the schema-checked copy. */
function crossFieldRules(b: Bundle): void {
  if (Number.isNaN(Date.parse(b.createdAt))) fail('createdAt', 'an ISO 8601 date', b.createdAt);
  b.phases.forEach((ph, i) => {
    if (ph.endMs < ph.startMs) {
      fail(`phases[${i}].endMs`, `a time ≥ startMs (${ph.startMs})`, ph.endMs);
    }
  });
  b.xruns.forEach((x, i) => {
    if (x.kernelEventIndex !== null && x.kernelEventIndex >= b.events.length) {
      fail(
        `xruns[${i}].kernelEventIndex`,
        `an index into events (0..${b.events.length - 1})`,
        x.kernelEventIndex,
      );
    }
  });
  breakdownRules(b, fail);
}

/** Checks an already-current (formatVersion 2) document; returns a clean copy. */
function validateCurrent(o: Obj): Bundle {
  // Reader leniency kept from the hand-written validator: a numeric rulesVersion is read as text.
  const rv = o['rulesVersion'];
  const doc =
    typeof rv === 'number' && Number.isFinite(rv) ? { ...o, rulesVersion: String(rv) } : o;
  const b = checkBundle(doc, '') as Bundle;
  crossFieldRules(b);
  return b;
}

/**
 * Turns parsed JSON into a current Bundle or throws XrunhuntError('format') naming the
 * bundle, the field path and the value found. Exists so every reader (analyze, compare,
 * aggregate, serve) trusts a bundle only after one shared, precise check.
 */
export function validateBundle(json: unknown, name = 'bundle'): Bundle {
  const label = name === 'bundle' ? 'bundle' : `bundle ${name}`;
  try {
    if (!isObj(json)) fail('(top level)', 'an object', json);
    const top = json as Obj;
    const upgraded = upgradeBundle(top, label);
    return validateCurrent(upgraded);
  } catch (err) {
    // Field paths hold the bundle's own keys and values its text: escaped before anyone prints.
    if (err instanceof Invalid) {
      throw new XrunhuntError('format', escapeControlChars(`${label}: ${err.message}`), {
        hint: 'the file is damaged or was not written by xrunhunt; the format is described in docs/aggregate.md',
      });
    }
    if (err instanceof XrunhuntError) {
      throw new XrunhuntError(err.code, escapeControlChars(err.message), {
        ...(err.hint === undefined ? {} : { hint: err.hint }),
        cause: err,
      });
    }
    throw err;
  }
}

/** Cheap sniff: does this text look like a bundle (a JSON object with formatVersion)? */
export function isBundleJson(text: string): boolean {
  const head = text.trimStart();
  if (!head.startsWith('{')) return false;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && 'formatVersion' in v;
  } catch {
    return false;
  }
}
