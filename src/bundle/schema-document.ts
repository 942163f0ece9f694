// The published JSON Schema of the bundle: the TypeBox schema of schema.ts as one JSON
// document. scripts/gen-schema.mjs writes it to schema/bundle-v1.schema.json at build time
// (checked in, shipped in the package) and serve answers GET /schema with the same text.
import { BundleSchema, FORMAT_VERSION } from './schema.js';

/** The file name the schema is published under. */
export const SCHEMA_FILE = `bundle-v${FORMAT_VERSION}.schema.json`;

/** The JSON Schema text (draft-07, 2-space indent, final newline); one text everywhere. */
export function bundleJsonSchemaText(): string {
  // JSON.stringify drops TypeBox's symbol keys (Kind, OptionalKind): only JSON Schema is left.
  const doc = { $schema: 'http://json-schema.org/draft-07/schema#', ...BundleSchema };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
