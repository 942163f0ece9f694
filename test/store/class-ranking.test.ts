// The per-class fleet ranking (`aggregate --by class`, `--class C`) on both backends, the
// embedded SQLite file and a real PostgreSQL 15 server (a throwaway cluster,
// test/helpers/postgres.ts): the format 2 fixture's breakdown classes and their culprits, the
// format 1 fixtures' stack classes beside them, the same answer from both stores.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { bundleHash } from '../../src/bundle/content-hash.js';
import type { Bundle } from '../../src/bundle/schema.js';
import { openFleetStore, STORE_SCHEMA_VERSION, type IngestItem } from '../../src/bundle/store.js';
import { fixtureJson } from '../../src/bundle/test-fixtures.js';
import { validateBundle } from '../../src/bundle/validate.js';
import type { ClassRanking } from '../../src/store/class-ranking-build.js';
import type { FleetBackend } from '../../src/store/fleet-backend.js';
import { openSqliteBackend } from '../../src/store/sqlite-backend.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { redactUrl } from '../../src/store/store-spec.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

const load = (name: string): Bundle => validateBundle(fixtureJson(name));
const item = (b: Bundle): IngestItem => ({ bundle: b, hash: bundleHash(b), source: 'test' });
const fleet = (): IngestItem[] => {
  const other = load('../bundles-format-2/session-v2-breakdown.json');
  other.machineId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
  return [
    item(load('../bundles-format-2/session-v2-breakdown.json')),
    item(other),
    item(load('session-lab-test-lockup.json.gz')),
  ];
};

const skip = postgresSkip();
let pgServer: TestPostgres | undefined;
const tmp = mkdtempSync(join(tmpdir(), 'xrh-class-rank-'));
let n = 0;
before(async () => {
  if (!skip) pgServer = await startTestPostgres();
});
after(() => {
  pgServer?.destroy();
  rmSync(tmp, { recursive: true, force: true });
});

const BACKENDS: { name: string; skip: string | false; open: () => Promise<FleetBackend> }[] = [
  { name: 'sqlite', skip: false, open: async () => openSqliteBackend(join(tmp, `f${++n}.db`)) },
  {
    name: 'postgres',
    skip,
    open: async () => {
      const url = pgServer!.createDatabase();
      return openPostgresStore(url, redactUrl(url));
    },
  },
];

const answers = new Map<string, ClassRanking[]>();

for (const backend of BACKENDS) {
  describe(`per-class ranking: ${backend.name}`, { skip: backend.skip }, () => {
    test('classes from breakdowns and stacks, culprits per class, --class and --since', async () => {
      const s = await backend.open();
      try {
        await s.ingest(fleet(), 0);
        const all = await s.rankClasses();
        // v2 fixture ×2: event 0 idle, 1 and 3 blocked-by-task, 2 irq-latency; the lab bundle: 3 kernel.
        assert.deepEqual(
          all.classes.map((c) => [c.class, c.source, c.incidents, c.machines]),
          [
            ['blocked-by-task', 'breakdown', 4, 2],
            ['kernel', 'stack', 3, 1],
            ['idle', 'stack', 2, 2],
            ['irq-latency', 'breakdown', 2, 2],
          ],
        );
        assert.equal(all.events, 11);
        assert.equal(all.bundles, 3);
        const blocked = all.classes[0]!;
        assert.deepEqual(
          blocked.culprits.map((c) => [c.culprit, c.incidents, c.machines]),
          [
            ['task cat (prio 120)', 2, 2],
            [blocked.culprits[1]!.culprit, 2, 2],
          ],
        );
        assert.equal(blocked.share, 4 / 11);
        const irq = all.classes.find((c) => c.class === 'irq-latency')!;
        assert.match(irq.culprits[0]!.culprit, /^irq-latency /);
        const kernel = all.classes.find((c) => c.class === 'kernel')!;
        assert.equal(kernel.culprits[0]!.culprit, 'test_unlock');

        const only = await s.rankClasses({ only: 'blocked-by-task', top: 1 });
        assert.deepEqual(
          only.classes.map((c) => [c.class, c.incidents, c.culprits.length, c.more]),
          [['blocked-by-task', 4, 1, 1]],
        );
        assert.equal(only.events, 11, 'the share stays a share of every event');
        const none = await s.rankClasses({ sinceMs: Date.parse('2100-01-01') });
        assert.deepEqual([none.classes, none.bundles, none.events], [[], 0, 0]);
        answers.set(backend.name, [all, only]);
      } finally {
        await s.close();
      }
    });
  });
}

test('SQLite and PostgreSQL give the same per-class ranking', { skip }, () => {
  assert.ok(answers.has('sqlite') && answers.has('postgres'));
  assert.deepEqual(answers.get('postgres'), answers.get('sqlite'));
});

// Store schema 2 → 3: an old store opens, its events have no breakdown (class from the stack).
test('a schema-2 SQLite store is upgraded in place to schema 3; old rows rank by their stack class', () => {
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  const path = join(tmp, 'schema2.db');
  let s = openFleetStore(path);
  s.ingest([item(load('session-ext4-writeback.json'))], 0);
  s.close();
  const db = new Sqlite(path);
  db.exec(`DROP INDEX events_breakdown; ALTER TABLE events DROP COLUMN breakdown_class; ALTER TABLE events DROP COLUMN top_blocker;
    UPDATE meta SET value = '2' WHERE key = 'schema_version';`);
  db.close();
  s = openFleetStore(path);
  s.ingest([item(load('../bundles-format-2/session-v2-breakdown.json'))], 0);
  const r = s.rankClasses();
  s.close();
  assert.deepEqual(
    r.classes.map((c) => [c.class, c.incidents]),
    [
      ['kernel', 3],
      ['blocked-by-task', 2],
      ['idle', 2],
      ['irq-latency', 1],
    ],
  );
  const check = new Sqlite(path, { readonly: true });
  assert.equal(
    check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get(),
    String(STORE_SCHEMA_VERSION),
  );
  check.close();
});
