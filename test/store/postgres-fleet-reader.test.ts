// One fleet, two stores: the same bundle files go through the real ingest into an SQLite
// file (test-fleet.ts) and into a real PostgreSQL 15 server (a throwaway cluster,
// test/helpers/postgres.ts); then every FleetReader method under a set of filters must give
// deep-equal answers from both. Counts are also checked against the bundles themselves, so
// two readers that were both wrong in the same way would still fail.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ingestFiles, listBundleFiles } from '../../src/bundle/ingest.js';
import { XrunhuntError } from '../../src/errors.js';
import { openPostgresFleetReader, positionalSql } from '../../src/store/postgres-fleet-reader.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { redactUrl } from '../../src/store/store-spec.js';
import type { FleetFilter, FleetReader } from '../../src/web/fleet-reader.js';
import { openSqliteFleetReader } from '../../src/web/sqlite-fleet-reader.js';
import { buildTestFleet, type TestFleet } from '../../src/web/test-fleet.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

const skip = postgresSkip();

test('positionalSql numbers each @name once, in order of first use', () => {
  assert.deepEqual(
    positionalSql('a IN (@k0, @k1) AND b = @k0 AND c = @x', { k0: 'p', k1: 2, x: 'q' }),
    {
      text: 'a IN ($1, $2) AND b = $1 AND c = $3',
      values: ['p', 2, 'q'],
    },
  );
  assert.throws(() => positionalSql('a = @missing', {}), /@missing has no value/);
});

describe('PostgreSQL FleetReader answers as the SQLite one', { skip }, () => {
  let pgServer: TestPostgres;
  let fleet: TestFleet;
  let sqlite: FleetReader;
  let postgres: FleetReader;

  before(async () => {
    pgServer = await startTestPostgres();
    fleet = await buildTestFleet(300, { hostile: true });
    const url = pgServer.createDatabase();
    const store = await openPostgresStore(url, redactUrl(url));
    const report = await ingestFiles(store, listBundleFiles([join(fleet.dir, 'inbox')]));
    await store.close();
    assert.equal(report.added, fleet.bundles.length);
    sqlite = openSqliteFleetReader(fleet.db);
    postgres = await openPostgresFleetReader(url, redactUrl(url));
  });
  after(async () => {
    await sqlite?.close();
    await postgres?.close();
    pgServer?.destroy();
    fleet?.remove();
  });

  const FILTERS: { name: string; filter: FleetFilter }[] = [
    { name: 'no filter (rollups)', filter: {} },
    { name: 'kernels', filter: { kernelReleases: ['6.1.0-28-amd64', '6.12.1-arch1-1'] } },
    {
      name: 'preempt + drivers',
      filter: { preempts: ['full'], drivers: ['snd_hda_intel', 'snd_usb_audio'] },
    },
    { name: 'card', filter: { cards: ['HDA Intel PCH'] } },
    {
      name: 'backend + driver',
      filter: { captureBackends: ['kprobe'], drivers: ['snd_hda_intel'] },
    },
    {
      name: 'time range + classes',
      filter: {
        sinceMs: Date.UTC(2026, 3, 1),
        untilMs: Date.UTC(2026, 6, 1),
        offenderClasses: ['kernel', 'idle', 'user'],
      },
    },
    { name: 'every class', filter: { offenderClasses: ['kernel', 'idle', 'user', 'none'] } },
    { name: 'nothing matches', filter: { kernelReleases: ['0.0.0-none'] } },
  ];

  test('filterValues', async () => {
    const want = await sqlite.filterValues();
    assert.deepEqual(await postgres.filterValues(), want);
    assert.ok(want.kernelReleases.length > 3 && want.cards.length > 2, 'the fleet varies');
  });

  test('the unfiltered totals count the bundles', async () => {
    const t = (await postgres.ranking({ filter: {} })).totals;
    assert.equal(t.bundles, fleet.bundles.length);
    assert.equal(t.machines, new Set(fleet.bundles.map((b) => b.machineId)).size);
  });

  for (const { name, filter } of FILTERS) {
    test(`ranking, signature, trend, flame: ${name}`, async () => {
      for (const limit of [3, 1000]) {
        assert.deepEqual(
          await postgres.ranking({ filter, limit }),
          await sqlite.ranking({ filter, limit }),
          `ranking limit ${limit}`,
        );
      }
      const ranked = (await sqlite.ranking({ filter, limit: 1000 })).rows;
      const sigs = ranked.flatMap((r) => (r.signature === null ? [] : [r.signature])).slice(0, 4);
      if (name !== 'nothing matches') assert.ok(sigs.length > 0, 'signatures to compare');
      for (const signature of [...sigs, 'no such signature']) {
        for (const stackLimit of [1, 20]) {
          assert.deepEqual(
            await postgres.signature({ signature, filter, stackLimit }),
            await sqlite.signature({ signature, filter, stackLimit }),
            `signature ${signature} stacks ${stackLimit}`,
          );
        }
      }
      for (const top of [0, 3, 8]) {
        assert.deepEqual(
          await postgres.trend({ filter, top }),
          await sqlite.trend({ filter, top }),
          `trend ${top}`,
        );
      }
      for (const signature of [null, sigs[0] ?? null]) {
        for (const limit of [2, 2000]) {
          assert.deepEqual(
            await postgres.flame({ filter, signature, limit }),
            await sqlite.flame({ filter, signature, limit }),
            `flame ${signature} ${limit}`,
          );
        }
      }
    });
  }

  test('answers are recomputed after an ingest commits', async () => {
    const before = (await postgres.ranking({ filter: {} })).totals.bundles;
    const url = pgServer.createDatabase();
    const store = await openPostgresStore(url, redactUrl(url));
    const files = listBundleFiles([join(fleet.dir, 'inbox')]);
    await ingestFiles(store, files.slice(0, 10));
    const reader = await openPostgresFleetReader(url, redactUrl(url));
    try {
      assert.equal((await reader.ranking({ filter: {} })).totals.bundles, 10);
      await ingestFiles(store, files.slice(10, 15));
      assert.equal((await reader.ranking({ filter: {} })).totals.bundles, 15);
    } finally {
      await reader.close();
      await store.close();
    }
    assert.equal(before, fleet.bundles.length);
  });

  test('a database without a fleet store is refused with what to do', async () => {
    const url = pgServer.createDatabase();
    await assert.rejects(
      openPostgresFleetReader(url, redactUrl(url)),
      (err: unknown) =>
        err instanceof XrunhuntError &&
        /holds no xrunhunt fleet store/.test(err.message) &&
        !err.message.includes(pgServer.password),
    );
  });
});
