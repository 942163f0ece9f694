#!/usr/bin/env node
// Writes schema/bundle-vN.schema.json (N = FORMAT_VERSION; older files stay as they are) from the built TypeBox schema (dist/bundle/schema.js),
// the one source of the bundle format. Run by `npm run build`; the file is also checked in and
// a test (src/bundle/schema-document.test.ts) fails when it differs from the generated text.
// `--check` only compares and exits 1 when the checked-in file is stale.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
const { bundleJsonSchemaText, SCHEMA_FILE } = await import(`${root}dist/bundle/schema-document.js`);
const target = `${root}schema/${SCHEMA_FILE}`;
const text = bundleJsonSchemaText();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    process.stderr.write(`schema/${SCHEMA_FILE} is stale: run npm run build and commit it\n`);
    process.exit(1);
  }
} else {
  mkdirSync(`${root}schema`, { recursive: true });
  writeFileSync(target, text);
}
