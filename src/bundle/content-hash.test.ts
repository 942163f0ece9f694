import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundleHash, canonicalJson, contentHash } from './content-hash.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

test('canonical JSON sorts keys at every level and drops undefined', () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: undefined } }),
    '{"a":{"d":[2,{"y":null,"z":1}]},"b":1}',
  );
});

test('the same bundle hashes the same however its keys are ordered; any change changes it', () => {
  const a = validateBundle(fixtureJson('session-ext4-writeback.json'));
  const b = validateBundle(
    JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(a).reverse()))),
  );
  assert.equal(contentHash(a), contentHash(b));
  const c = structuredClone(a);
  c.events[0]!.frames[0] = 'dump_stack';
  assert.notEqual(contentHash(a), contentHash(c));
  assert.match(contentHash(a), /^[0-9a-f]{64}$/);
});

test('bundleHash of a validated bundle does not depend on the input key order, only on content', () => {
  const doc = fixtureJson('session-ext4-writeback.json');
  const host = doc['host'] as Record<string, unknown>;
  host['configFlags'] = Object.fromEntries(Object.entries(host['configFlags'] as object).reverse());
  const a = validateBundle(doc);
  const b = validateBundle(
    JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(doc).reverse()))),
  );
  assert.equal(bundleHash(b), bundleHash(a));
  const c = structuredClone(a);
  c.host.configFlags['SND_DEBUG'] = false;
  assert.notEqual(bundleHash(c), bundleHash(a));
  assert.match(bundleHash(a), /^[0-9a-f]{64}$/);
});
