// PostgreSQL array literals built in one pass. node-postgres serialises a JS array parameter
// element by element through its generic prepareValue/escapeElement (a fifth of the ingest
// CPU at 20,000 bundles); the ingest's unnest() inserts pass only strings, numbers and
// nulls, for which the literal is a join with quoting only where a quote or backslash occurs.

/** What an ingest array parameter may hold. */
export type ArrayElement = string | number | boolean | null | undefined;

const NEEDS_ESCAPE = /["\\]/;

// PostgreSQL text cannot hold NUL (error 22021: the whole ingest batch rolled back and the
// upload, answered 201, stayed deferred in the inbox). A bundle may carry NUL in any string;
// the stored text holds U+FFFD instead, which is what every page shows for it anyway.
// eslint-disable-next-line no-control-regex -- NUL is what is replaced
const NUL = /\u0000/g;

/** The `{...}` text PostgreSQL parses as the same array (null/undefined → NULL). */
export function pgArrayLiteral(values: readonly ArrayElement[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    const v = values[i];
    if (v === null || v === undefined) out += 'NULL';
    else if (typeof v === 'string') {
      const t = v.replace(NUL, '\ufffd');
      out += NEEDS_ESCAPE.test(t) ? `"${t.replace(/["\\]/g, '\\$&')}"` : `"${t}"`;
    } else if (typeof v === 'number' || typeof v === 'boolean') out += String(v);
    else throw new TypeError(`pgArrayLiteral: unsupported element ${typeof v}`);
  }
  return `${out}}`;
}

/** A query's parameters with every array replaced by its literal (NUL in text as U+FFFD). */
export function withArrayLiterals(values: readonly unknown[]): unknown[] {
  return values.map((v) =>
    Array.isArray(v)
      ? pgArrayLiteral(v as ArrayElement[])
      : typeof v === 'string'
        ? v.replace(NUL, '\ufffd')
        : v,
  );
}
