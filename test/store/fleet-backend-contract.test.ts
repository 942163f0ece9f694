// The fleet store contract, run with the same assertions against both backends: the embedded
// SQLite file and a real PostgreSQL 15 server (a throwaway cluster, test/helpers/postgres.ts).
// Then the two backends fed the same synthetic fleet must rank identically.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleHash } from '../../src/bundle/content-hash.js';
import type { Bundle } from '../../src/bundle/schema.js';
import type { IngestItem } from '../../src/bundle/store.js';
import { syntheticBundle } from '../../src/bundle/synthetic-fleet.js';
import { fixtureJson } from '../../src/bundle/test-fixtures.js';
import { validateBundle } from '../../src/bundle/validate.js';
import type { FleetBackend } from '../../src/store/fleet-backend.js';
import { openSqliteBackend } from '../../src/store/sqlite-backend.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { redactUrl } from '../../src/store/store-spec.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

const ext4 = (): Bundle => validateBundle(fixtureJson('session-ext4-writeback.json'));
const lab = (): Bundle => validateBundle(fixtureJson('session-lab-test-lockup.json.gz'));
const item = (b: Bundle, source = 'test'): IngestItem => ({
  bundle: b,
  hash: bundleHash(b),
  source,
});

const skip = postgresSkip();
let pgServer: TestPostgres | undefined;
const tmp = mkdtempSync(join(tmpdir(), 'xrh-contract-'));
let n = 0;
const pgUrls: string[] = [];

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
      pgUrls.push(url);
      return openPostgresStore(url, redactUrl(url));
    },
  },
];

async function withStore(
  open: () => Promise<FleetBackend>,
  fn: (s: FleetBackend) => Promise<void>,
): Promise<void> {
  const s = await open();
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

for (const backend of BACKENDS) {
  describe(`fleet store contract: ${backend.name}`, { skip: backend.skip }, () => {
    test('the same bundle counts once, in one batch or across batches', () =>
      withStore(backend.open, async (s) => {
        const a = ext4();
        assert.deepEqual(await s.ingest([item(a), item(structuredClone(a))], 0), {
          added: 1,
          duplicates: 1,
        });
        assert.deepEqual(await s.ingest([item(a)], 0), { added: 0, duplicates: 1 });
        assert.equal(await s.count(), 1);
        assert.equal(await s.hasBundle(bundleHash(a)), true);
        assert.equal(await s.hasBundle('0'.repeat(64)), false);
        const g = (await s.rank()).groups[0]!;
        assert.equal(g.signatures[0]!.incidents, 3);
      }));

    test('ranking: incidents, machines, per machine-hour, share, facets and an example stack', () =>
      withStore(backend.open, async (s) => {
        const a = ext4();
        const b = ext4();
        b.machineId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
        b.createdAt = '2026-11-25T10:00:00.000Z';
        b.host.kernelRelease = '6.1.0-30-amd64';
        b.events = b.events.slice(0, 2);
        await s.ingest([item(a), item(b), item(lab())], 0);
        const g = (await s.rank()).groups[0]!;
        assert.equal(g.bundles, 3);
        assert.equal(g.machines, 3);
        assert.deepEqual(g.classes, { kernel: 7, idle: 2, user: 0, none: 0 });
        const [first, second] = g.signatures;
        assert.equal(first!.signature, '_raw_spin_unlock_irq | __filemap_add_folio');
        assert.equal(first!.incidents, 4);
        assert.equal(first!.machines, 2);
        assert.equal(first!.share, 4 / 7);
        const hours = (70_000 + 70_000 + 25_000) / 3_600_000;
        assert.ok(Math.abs(first!.perMachineHour - 4 / hours) < 1e-9);
        assert.deepEqual(first!.kernels.first, {
          release: '6.1.0-28-amd64',
          at: '2026-11-20T18:42:07.311Z',
        });
        assert.deepEqual(first!.kernels.last, {
          release: '6.1.0-30-amd64',
          at: '2026-11-25T10:00:00.000Z',
        });
        assert.deepEqual(first!.drivers, [{ value: 'snd_hda_intel', count: 4 }]);
        assert.ok(first!.exampleStack.includes('RIP: _raw_spin_unlock_irq'));
        assert.equal(second!.signature, 'test_unlock');
        assert.equal(second!.module, 'test_lockup');
      }));

    test('--by groups separately and --since leaves older bundles out', () =>
      withStore(backend.open, async (s) => {
        const b = ext4();
        b.machineId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
        b.host.preempt = 'full';
        await s.ingest([item(ext4()), item(b), item(lab())], 0);
        const byPreempt = await s.rank({ by: 'preempt' });
        assert.deepEqual(
          byPreempt.groups.map((g) => [
            g.key,
            g.bundles,
            g.signatures.map((x) => `${x.signature}:${x.incidents}`),
          ]),
          [
            ['full', 2, ['_raw_spin_unlock_irq | __filemap_add_folio:3', 'test_unlock:3']],
            ['voluntary', 1, ['_raw_spin_unlock_irq | __filemap_add_folio:3']],
          ],
        );
        const write = (await s.rank({ by: 'load' })).groups.find((g) => g.key === 'write')!;
        assert.equal(write.playbackHours, (30_000 * 2) / 3_600_000);
        const recent = await s.rank({ sinceMs: Date.parse('2026-11-27T00:00:00Z') });
        assert.equal(recent.groups[0]!.bundles, 1);
        assert.equal(recent.groups[0]!.signatures[0]!.signature, 'test_unlock');
        assert.equal((await s.rank({ top: 1 })).groups[0]!.more, 1);
      }));

    test('resign recomputes signatures from stored frames and records the rules version', () =>
      withStore(backend.open, async (s) => {
        await s.ingest([item(ext4()), item(lab())], 0);
        assert.equal(await s.rulesVersion(), null);
        const res = await s.resign((frames) => {
          const rip = frames.findIndex((f) => f.startsWith('RIP: '));
          const next = frames[rip + 1] ?? null;
          if (frames[rip] === 'RIP: cpuidle_enter_state')
            return { class: 'idle', function: null, module: null, signature: null };
          return { class: 'kernel', function: next, module: null, signature: `caller:${next}` };
        }, '2');
        assert.equal(res.events, 6);
        const r = await s.rank();
        assert.equal(r.rulesVersion, '2');
        assert.equal(await s.rulesVersion(), '2');
        assert.deepEqual(r.rulesVersions, [{ value: '2', count: 2 }]);
        assert.deepEqual(
          r.groups[0]!.signatures.map((x) => x.signature),
          ['caller:__filemap_add_folio', 'caller:test_lockup_init [test_lockup]'],
        );
        assert.deepEqual({ ...r, sinceMs: 0 }, await s.rank({ sinceMs: 0 }));
        const none = () =>
          ({ class: 'none', function: null, module: null, signature: null }) as const;
        assert.equal((await s.resign(none, '3')).events, 7);
        assert.equal((await s.resign(none, '3')).events, 0);
      }));

    test('files already ingested are known by path, size and mtime', () =>
      withStore(backend.open, async (s) => {
        const a = ext4();
        await s.ingest(
          [{ ...item(a), file: { path: '/inbox/a.json', size: 10, mtimeMs: 1.5 } }],
          0,
        );
        assert.equal(await s.isKnownFile('/inbox/a.json', 10, 1.5), true);
        assert.equal(await s.isKnownFile('/inbox/a.json', 11, 1.5), false);
      }));
  });
}

describe('both backends fed the same synthetic fleet rank identically', { skip }, () => {
  test('2,000 bundles in overlapping batches: every grouping, full history and --since', async () => {
    const base = ext4();
    const items = Array.from({ length: 2000 }, (_, i) => item(syntheticBundle(base, i, 300)));
    const stores = await Promise.all(BACKENDS.map((b) => b.open()));
    try {
      for (const s of stores) {
        const r0 = await s.ingest(items.slice(0, 1000), 0);
        const r1 = await s.ingest(items.slice(500), 0);
        assert.equal(r0.added + r1.added, 2000);
        assert.equal(r1.duplicates, 500);
      }
      const [lite, pg] = stores as [FleetBackend, FleetBackend];
      for (const by of [null, 'kernel', 'driver', 'preempt', 'load'] as const) {
        for (const sinceMs of [null, 0, Date.parse('2026-11-10T00:00:00Z')]) {
          assert.deepEqual(
            await pg.rank({ by, top: 1000, sinceMs }),
            await lite.rank({ by, top: 1000, sinceMs }),
            `by ${by}, since ${sinceMs}`,
          );
        }
      }
    } finally {
      for (const s of stores) await s.close();
    }
  });
});

describe(
  'schema 2 columns (card, capture backend) hold the same values in both backends',
  { skip },
  () => {
    test('events per card and backend, and bundle cards, match', async () => {
      const items = Array.from({ length: 300 }, (_, i) => item(syntheticBundle(ext4(), i, 40)));
      items.push(item(lab()));
      const [lite, pgStore] = await Promise.all(BACKENDS.map((b) => b.open()));
      try {
        await lite!.ingest(items, 0);
        await pgStore!.ingest(items, 0);
        const queries = [
          'SELECT card, capture_backend, COUNT(*) AS n FROM events GROUP BY card, capture_backend ORDER BY card, capture_backend',
          'SELECT capture_backend, COUNT(*) AS n FROM bundles GROUP BY capture_backend ORDER BY capture_backend',
          'SELECT card, COUNT(*) AS n FROM bundle_cards GROUP BY card ORDER BY card',
        ];
        const { default: Database } = await import('better-sqlite3');
        const db = new Database(lite!.label, { readonly: true });
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: pgUrls.at(-1)! });
        await client.connect();
        try {
          for (const q of queries) {
            const want = db.prepare(q).all() as Record<string, unknown>[];
            const got = (await client.query(q.replace(/COUNT\(\*\)/, 'COUNT(*)::int'))).rows;
            assert.ok(want.length > 0, q);
            assert.deepEqual(got, want, q);
          }
        } finally {
          db.close();
          await client.end();
        }
      } finally {
        await lite!.close();
        await pgStore!.close();
      }
    });
  },
);
