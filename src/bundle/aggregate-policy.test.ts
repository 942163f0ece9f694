// The policies aggregate used to hold inline: re-signing, where the store and inboxes may be
// created, what skip reasons and validation messages may contain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { displayName, resignPlan } from './ingest.js';
import { defaultFleetDb, prepareFleetDbFolder, prepareInboxFolder } from './fleet-paths.js';
import { validateBundle } from './validate.js';

test('re-sign policy: --resign does all; a re-signed store keeps files AND watched arrivals consistent', () => {
  assert.deepEqual(resignPlan({ requested: true, storeRulesVersion: null, willIngest: false }), {
    store: true,
    incoming: true,
  });
  assert.deepEqual(resignPlan({ requested: false, storeRulesVersion: '1.3.0', willIngest: true }), {
    store: false,
    incoming: true,
  });
  assert.deepEqual(
    resignPlan({ requested: false, storeRulesVersion: '1.3.0', willIngest: false }),
    {
      store: false,
      incoming: false,
    },
  );
  assert.deepEqual(resignPlan({ requested: false, storeRulesVersion: null, willIngest: true }), {
    store: false,
    incoming: false,
  });
});

test('a named --db needs an existing folder; the default folder is created', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-fleet-paths-'));
  try {
    const missing = join(dir, 'nonexistent', 'x.db');
    assert.throws(
      () => prepareFleetDbFolder(missing, true),
      (e: unknown) =>
        e instanceof XrunhuntError && /the folder .*nonexistent does not exist/.test(e.message),
    );
    assert.equal(existsSync(join(dir, 'nonexistent')), false);
    writeFileSync(join(dir, 'file'), '');
    assert.throws(() => prepareFleetDbFolder(join(dir, 'file', 'x.db'), true), XrunhuntError);
    prepareFleetDbFolder(join(dir, 'x.db'), true);
    const def = defaultFleetDb({ XDG_DATA_HOME: join(dir, 'data') });
    assert.equal(def, join(dir, 'data', 'xrunhunt', 'fleet.db'));
    prepareFleetDbFolder(def, false);
    assert.ok(existsSync(join(dir, 'data', 'xrunhunt')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a watched inbox is created one level deep only', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-inbox-path-'));
  try {
    prepareInboxFolder(join(dir, 'inbox'));
    assert.ok(existsSync(join(dir, 'inbox')));
    prepareInboxFolder(join(dir, 'inbox'));
    assert.throws(
      () => prepareInboxFolder(join(dir, 'a', 'b', 'inbox')),
      (e: unknown) =>
        e instanceof XrunhuntError && /parent folder .* does not exist/.test(e.message),
    );
    assert.equal(existsSync(join(dir, 'a')), false);
    mkdirSync(join(dir, 'x'));
    writeFileSync(join(dir, 'x', 'f'), '');
    assert.throws(() => prepareInboxFolder(join(dir, 'x', 'f')), /is not a folder/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

test('validation messages escape what they quote: values, and keys in field paths', () => {
  const cases: unknown[] = [
    { formatVersion: 1, tool: { name: 'xrunhunt\u001b[2J\u009b2J\u202e', version: '1' } },
    { formatVersion: '\u001b]0;title\u0007' },
  ];
  const withKey = JSON.parse(
    readFileSync(
      join(import.meta.dirname, '../../test/fixtures/bundles/session-ext4-writeback.json'),
      'utf8',
    ),
  ) as { host: { configFlags: Record<string, unknown> } };
  withKey.host.configFlags['\u001b[2J\u009b'] = 'y';
  cases.push(withKey);
  for (const json of cases) {
    assert.throws(
      () => validateBundle(json, 'b.json'),
      (e: unknown) =>
        e instanceof XrunhuntError && /expected/.test(e.message) && !RAW_CONTROL.test(e.message),
    );
  }
});

test('file names with C1 controls or bidi overrides are quoted and escaped', () => {
  for (const name of ['/in/a\u009b2Jb.json', '/in/\u202egpj.json', '/in/x\ny.json']) {
    const shown = displayName(name);
    assert.ok(shown.startsWith('"'), shown);
    assert.doesNotMatch(shown, RAW_CONTROL);
  }
  assert.equal(displayName('/in/plain.json'), '/in/plain.json');
});
