// Loads the project's bundle fixtures (test/fixtures/bundles, synthetic, see its README) for
// tests and the benchmark; not used at run time.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export const FIXTURE_DIR = new URL('../../test/fixtures/bundles/', import.meta.url);

/** Parsed JSON of one fixture file (gunzipped when needed), unvalidated. */
export function fixtureJson(name: string): Record<string, unknown> {
  let bytes = readFileSync(new URL(name, FIXTURE_DIR));
  if (name.endsWith('.gz')) bytes = gunzipSync(bytes);
  return JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
}
