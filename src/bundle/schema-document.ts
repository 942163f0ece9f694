// The published JSON Schema of the bundle: the TypeBox schema of schema.ts as one JSON
// document. scripts/gen-schema.mjs writes it to schema/bundle-v2.schema.json at build time
// (checked in, shipped in the package) and serve answers GET /schema with the same text.
// Older versions' files stay in schema/ frozen (bundle-v1.schema.json, for collectors that
// still check format 1 before they send); GET /schema?v=1 serves that file as it is.
import { readFileSync } from 'node:fs';
import { BundleSchema, FORMAT_VERSION } from './schema.js';

/** The file name the schema of `version` is published under. */
export const schemaFileName = (version: number): string => `bundle-v${version}.schema.json`;

/** The file name the current schema is published under. */
export const SCHEMA_FILE = schemaFileName(FORMAT_VERSION);

/** The published format versions whose schema GET /schema?v=N serves. */
export const PUBLISHED_VERSIONS: readonly number[] = [1, FORMAT_VERSION];

/** The JSON Schema text (draft-07, 2-space indent, final newline); one text everywhere. */
export function bundleJsonSchemaText(): string {
  // JSON.stringify drops TypeBox's symbol keys (Kind, OptionalKind): only JSON Schema is left.
  const doc = { $schema: 'http://json-schema.org/draft-07/schema#', ...BundleSchema };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

const frozen = new Map<number, string>();

/**
 * The schema text of a published version (null: none such): the current one generated, an
 * older one read once from the package's schema/ folder. Exists for GET /schema?v=N.
 */
export function publishedSchemaText(version: number): string | null {
  if (version === FORMAT_VERSION) return bundleJsonSchemaText();
  if (!PUBLISHED_VERSIONS.includes(version)) return null;
  let text = frozen.get(version);
  if (text === undefined) {
    // src/bundle/ and dist/bundle/ both sit two levels below the package root.
    text = readFileSync(
      new URL(`../../schema/${schemaFileName(version)}`, import.meta.url),
      'utf8',
    );
    frozen.set(version, text);
  }
  return text;
}
