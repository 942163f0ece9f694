// Exactly-once under concurrency, on a real PostgreSQL server: four writers (four stores,
// four connection pools, as four ingest processes would have) ingest overlapping sets of
// bundles at once. Every bundle must be stored exactly once and the rollups (the ranking)
// must equal what one SQLite writer computes from the same bundles.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleHash } from '../../src/bundle/content-hash.js';
import type { IngestItem } from '../../src/bundle/store.js';
import { syntheticBundle } from '../../src/bundle/synthetic-fleet.js';
import { fixtureJson } from '../../src/bundle/test-fixtures.js';
import { validateBundle } from '../../src/bundle/validate.js';
import { openSqliteBackend } from '../../src/store/sqlite-backend.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

const skip = postgresSkip();
let server: TestPostgres | undefined;
const tmp = mkdtempSync(join(tmpdir(), 'xrh-pgconc-'));
before(async () => {
  if (!skip) server = await startTestPostgres();
});
after(() => {
  server?.destroy();
  rmSync(tmp, { recursive: true, force: true });
});

test(
  '4 concurrent writers, overlapping sets: every bundle once, rollups equal SQLite',
  { skip },
  async () => {
    const base = validateBundle(fixtureJson('session-ext4-writeback.json'));
    const N = 3000;
    const all: IngestItem[] = Array.from({ length: N }, (_, i) => {
      const b = syntheticBundle(base, i, 400);
      return { bundle: b, hash: bundleHash(b), source: `s${i}` };
    });
    // Writer w takes bundles [w*N/4 - N/4, w*N/4 + N/2): each bundle is offered by 2-3 writers,
    // in a different order per writer (reversed for odd writers) and in batches of 250.
    const sets = [0, 1, 2, 3].map((w) => {
      const lo = Math.max(0, Math.floor(((w - 1) * N) / 4));
      const set = all.slice(lo, Math.min(N, lo + (3 * N) / 4));
      return w % 2 ? set.reverse() : set;
    });
    const url = server!.createDatabase();
    // All four open at once: the migration runs once under the advisory lock.
    const writers = await Promise.all(
      sets.map(() => openPostgresStore(url, 'pg', { poolSize: 2 })),
    );
    try {
      const results = await Promise.all(
        writers.map(async (s, w) => {
          let added = 0;
          let duplicates = 0;
          for (let i = 0; i < sets[w]!.length; i += 250) {
            const r = await s.ingest(sets[w]!.slice(i, i + 250), 1);
            added += r.added;
            duplicates += r.duplicates;
          }
          return { added, duplicates };
        }),
      );
      const offered = sets.reduce((n, s) => n + s.length, 0);
      assert.equal(
        results.reduce((n, r) => n + r.added, 0),
        N,
        'added across writers = distinct bundles',
      );
      assert.equal(
        results.reduce((n, r) => n + r.duplicates, 0),
        offered - N,
      );
      assert.equal(await writers[0]!.count(), N);

      const lite = openSqliteBackend(join(tmp, 'ref.db'));
      await lite.ingest(all, 1);
      for (const by of [null, 'kernel', 'driver', 'preempt', 'load'] as const) {
        const pg = await writers[0]!.rank({ by, top: 10_000 });
        const ref = await lite.rank({ by, top: 10_000 });
        // Stack ids (hence the example stack of a signature) depend on who inserted first;
        // every count, machine set, share and first/last seen must match exactly.
        const strip = (r: typeof pg) =>
          r.groups.map((g) => ({
            ...g,
            signatures: g.signatures.map((x) => ({ ...x, exampleStack: [] })),
          }));
        assert.deepEqual(strip(pg), strip(ref), `by ${by}`);
        // The rollups (full history) equal a fresh count over the events (--since 0).
        assert.deepEqual(strip(await writers[1]!.rank({ by, top: 10_000, sinceMs: 0 })), strip(pg));
      }
      await lite.close();
    } finally {
      for (const s of writers) await s.close();
    }
  },
);

test('8 stores starting at once on an empty database migrate exactly once', { skip }, async () => {
  const { MIGRATIONS } = await import('../../src/store/postgres-schema.js');
  const url = server!.createDatabase();
  const stores = await Promise.all(
    Array.from({ length: 8 }, () => openPostgresStore(url, 'pg', { poolSize: 1 })),
  );
  for (const s of stores) await s.close();
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query('SELECT version, name FROM schema_migrations ORDER BY version');
  await c.end();
  assert.deepEqual(
    r.rows.map((x: { version: number }) => x.version),
    MIGRATIONS.map((m) => m.version),
  );
});

test(
  'a schema-1 database is migrated to 2 in place on open; a newer one is refused',
  { skip },
  async () => {
    const { MIGRATIONS } = await import('../../src/store/postgres-schema.js');
    const { default: pg } = await import('pg');
    const url = server!.createDatabase();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(
        'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      await c.query(MIGRATIONS[0]!.sql);
      await c.query("INSERT INTO schema_migrations (version, name) VALUES (1, 'v1')");
      await c.query(`INSERT INTO bundles (hash, machine_id, kind, created_at, created_ms, ingested_ms,
      kernel_release, preempt, arch, drivers, playback_ms, duration_ms, xruns, kernel_events,
      rules_version, tool_version, source) VALUES ('h1', 'm', 'session', 'x', 0, 0, 'k', 'full',
      'x86_64', 'snd_dummy', 1, 1, 0, 0, '1', '0', 's')`);
      const s = await openPostgresStore(url, 'pg');
      assert.equal(await s.count(), 1);
      await s.close();
      const v = await c.query('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        v.rows.map((r: { version: number }) => r.version),
        [1, 2, 3],
      );
      const cards = await c.query('SELECT card FROM bundle_cards');
      assert.deepEqual(cards.rows, [{ card: 'unknown' }]);
      const meta = await c.query("SELECT value FROM meta WHERE key = 'schema_version'");
      assert.equal(meta.rows[0].value, '3');
      await c.query("INSERT INTO schema_migrations (version, name) VALUES (99, 'future')");
      await assert.rejects(
        openPostgresStore(url, 'pg'),
        /migrated by a newer xrunhunt \(schema 99\)/,
      );
    } finally {
      await c.end();
    }
  },
);
