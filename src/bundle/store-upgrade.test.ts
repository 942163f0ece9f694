// Store schema 1 → 2 (card and capture-backend columns for the web view's filters): an old
// store opens, keeps every count, and says 'unknown' where it never knew; new bundles fill
// the new columns from the bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { bundleHash } from './content-hash.js';
import type { Bundle } from './schema.js';
import { openFleetStore, STORE_SCHEMA_VERSION } from './store.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
const ext4 = (): Bundle => validateBundle(fixtureJson('session-ext4-writeback.json'));
const item = (b: Bundle) => ({ bundle: b, hash: bundleHash(b), source: 'test' });

/** Turns a fresh store back into the schema-1 shape (what xrunhunt before schema 2 wrote). */
function downgradeToSchema1(path: string): void {
  const db = new Sqlite(path);
  db.exec(`
    ALTER TABLE bundles DROP COLUMN capture_backend;
    ALTER TABLE events DROP COLUMN card;
    ALTER TABLE events DROP COLUMN capture_backend;
    DROP TABLE bundle_cards;
    UPDATE meta SET value = '1' WHERE key = 'schema_version';
  `);
  db.close();
}

test('a schema-1 store is upgraded in place: counts kept, new columns unknown, new bundles filled', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-upgrade-'));
  const path = join(dir, 'fleet.db');
  try {
    const old = ext4();
    let s = openFleetStore(path);
    s.ingest([item(old)], 0);
    const before = s.rank();
    s.close();
    downgradeToSchema1(path);

    s = openFleetStore(path);
    assert.deepEqual(s.rank(), before);
    const fresh = ext4();
    fresh.machineId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    s.ingest([item(fresh)], 0);
    s.close();

    const db = new Sqlite(path, { readonly: true });
    assert.equal(
      db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get(),
      String(STORE_SCHEMA_VERSION),
    );
    const rows = db
      .prepare(
        `SELECT b.machine_id AS machine, b.capture_backend AS backend, c.card AS card
         FROM bundles b JOIN bundle_cards c ON c.bundle_id = b.id ORDER BY b.id`,
      )
      .all();
    assert.deepEqual(rows, [
      { machine: old.machineId, backend: 'unknown', card: 'unknown' },
      {
        machine: fresh.machineId,
        backend: fresh.params!.captureBackend,
        card: fresh.host.cards[0]!.name,
      },
    ]);
    const eventCards = db
      .prepare(
        'SELECT DISTINCT b.machine_id, e.card, e.capture_backend FROM events e JOIN bundles b ON b.id = e.bundle_id ORDER BY b.id',
      )
      .raw()
      .all();
    assert.deepEqual(eventCards, [
      [old.machineId, 'unknown', 'unknown'],
      [fresh.machineId, fresh.host.cards[0]!.name, fresh.params!.captureBackend],
    ]);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
