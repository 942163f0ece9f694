// The content hash is the fleet store's dedup key and the inbox file name: a change of the
// validator (it rebuilds every bundle in a fixed key order) must not change it. These values
// were recorded from branch main (commit 0a5d339, hand-written validator) before the
// TypeBox schema replaced it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundleHash } from './content-hash.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

const RECORDED_ON_MAIN: Record<string, string> = {
  'session-ext4-writeback.json': 'f866cd54c32e27013577d98b4609cb51dc3eacf338736e5c1f265fb27a91ecd1',
  'session-lab-test-lockup.json.gz':
    '1f2884e6c4905aeef55b985f336f24243e8e3bcd632b07a8e41b69c0c643eff9',
  'session-v0-draft.json': '8099ef85900843d0ec55bbfdec8edb327a53c66293a50ca2f252782f4eb8ea58',
};

// Format 2: a bundle that carries breakdowns hashes its validated v2 text (content-hash.ts);
// recorded when format 2 was defined (branch carry), so a later validator change that moves it
// is caught too.
const RECORDED_FORMAT_2: Record<string, string> = {
  '../bundles-format-2/session-v2-breakdown.json':
    '8c19482ad5497c206a9067cfad2b50d28b64d7e10d90c8ea810424c530edef3e',
};

for (const [name, hash] of Object.entries({ ...RECORDED_ON_MAIN, ...RECORDED_FORMAT_2 })) {
  test(`bundleHash of fixture ${name} is the value recorded on main`, () => {
    assert.equal(bundleHash(validateBundle(fixtureJson(name))), hash);
  });
}
