import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { bundleJsonSchemaText, SCHEMA_FILE } from './schema-document.js';
import { BundleSchema } from './schema.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

const checkedIn = new URL(`../../schema/${SCHEMA_FILE}`, import.meta.url);

test('the checked-in schema/bundle-v2.schema.json equals the one generated from schema.ts', () => {
  assert.equal(
    readFileSync(checkedIn, 'utf8'),
    bundleJsonSchemaText(),
    'stale: run `npm run build` (scripts/gen-schema.mjs) and commit schema/',
  );
});

test('the published schema is JSON Schema of the bundle: types, enums, limits, required fields', () => {
  const doc = JSON.parse(readFileSync(checkedIn, 'utf8')) as Record<string, unknown>;
  assert.equal(doc['$schema'], 'http://json-schema.org/draft-07/schema#');
  assert.equal(doc['type'], 'object');
  const props = doc['properties'] as Record<string, Record<string, unknown>>;
  // Every property is required except the optional additions (`try`; format 2's `breakdown`).
  assert.deepEqual(
    doc['required'],
    Object.keys(props).filter((k) => k !== 'try' && k !== 'breakdown'),
  );
  assert.equal(props['formatVersion']!['const'], 2);
  assert.equal(props['machineId']!['pattern'], '^[A-Za-z0-9_-]{1,128}$');
  const kinds = (props['kind']!['anyOf'] as { const: string }[]).map((k) => k.const);
  assert.deepEqual(kinds, ['session', 'watch', 'analyze', 'try']);
  const xrunItem = (props['xruns']!['items'] as Record<string, unknown>)['required'];
  assert.deepEqual(xrunItem, ['timeMs', 'durationMs', 'phase', 'kernelEventIndex']);
});

// The walker in validate.ts interprets the same schema TypeBox compiles to a JSON Schema
// checker: both must accept the fixtures and reject the same broken copies.
test('validateBundle and the compiled JSON Schema check agree on fixtures and broken copies', () => {
  const compiled = TypeCompiler.Compile(BundleSchema);
  const good = validateBundle(fixtureJson('session-ext4-writeback.json'));
  assert.equal(compiled.Check(good), true, [...compiled.Errors(good)][0]?.message);
  const lab = validateBundle(fixtureJson('session-lab-test-lockup.json.gz'));
  assert.equal(compiled.Check(lab), true);
  const breaks: ((d: Record<string, unknown>) => void)[] = [
    (d) => ((d['host'] as Record<string, unknown>)['preempt'] = 'sometimes'),
    (d) => (d['machineId'] = '../x'),
    (d) => ((d['offenders'] as Record<string, unknown>[])[0]!['share'] = 3),
    (d) => ((d['events'] as Record<string, unknown>[])[0]!['frames'] = [1]),
    (d) => ((d['host'] as Record<string, unknown>)['cpus'] = 2.5),
    (d) => (d['tool'] = { name: 'other', version: '1' }),
    (d) => (d['warnings'] = 'none'),
    (d) => ((d['host'] as Record<string, unknown>)['kernelRelease'] = 'x'.repeat(257)),
  ];
  for (const [i, mutate] of breaks.entries()) {
    const doc = structuredClone(good) as unknown as Record<string, unknown>;
    mutate(doc);
    assert.equal(compiled.Check(doc), false, `break ${i}: compiled schema accepted it`);
    assert.throws(() => validateBundle(doc), /expected/, `break ${i}: validateBundle accepted it`);
  }
});

// Collectors written against format 1 keep checking with the file they know: it is frozen.
test('schema/bundle-v1.schema.json is kept byte for byte as format 1 published it', () => {
  const v1 = readFileSync(new URL('../../schema/bundle-v1.schema.json', import.meta.url));
  assert.equal(
    createHash('sha256').update(v1).digest('hex'),
    '8d373c08021e8940936d2860f17b116bb0b667773c2f326f09beaee69d6f6e60',
  );
});
