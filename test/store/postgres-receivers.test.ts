// Many receivers, one PostgreSQL store, through the real CLI (`serve --store`, `aggregate
// --store`) and a real server: the same bundle sent to two receivers counts once; a receiver
// killed with SIGKILL loses nothing it accepted; an ingest killed mid-batch completes on a
// rerun without counting anything twice; PostgreSQL restarted under load → receivers keep
// accepting (on disk in the inbox first) and everything they accepted reaches the store.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import type { Bundle } from '../../src/bundle/schema.js';
import { syntheticBundle } from '../../src/bundle/synthetic-fleet.js';
import { fixtureJson } from '../../src/bundle/test-fixtures.js';
import { validateBundle } from '../../src/bundle/validate.js';
import { openPostgresStore, type PostgresFleetStore } from '../../src/store/postgres-store.js';
import { openSqliteBackend } from '../../src/store/sqlite-backend.js';
import { ingestFiles, listBundleFiles } from '../../src/bundle/ingest.js';
import { cliCommand } from '../helpers/cli.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

const skip = postgresSkip();
let server: TestPostgres | undefined;
const tmp = mkdtempSync(join(tmpdir(), 'xrh-pgrx-'));
const base = validateBundle(fixtureJson('session-ext4-writeback.json'));
const gz = (b: Bundle): Buffer => gzipSync(JSON.stringify(b));

before(async () => {
  if (!skip) server = await startTestPostgres();
});
after(() => {
  server?.destroy();
  rmSync(tmp, { recursive: true, force: true });
});

interface Serve {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

async function startServe(inbox: string, store: string): Promise<Serve> {
  const [cmd, ...pre] = cliCommand();
  const child = spawn(
    cmd!,
    [
      ...pre,
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--json',
      '--rate-limit',
      '10000/1s',
      '--inbox',
      inbox,
      '--store',
      store,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  const exited = new Promise<number | null>((res) =>
    child.on('exit', (code) => {
      clearTimeout(killer);
      res(code);
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const rec = JSON.parse(l) as Record<string, unknown>;
      if (rec['type'] === 'listening') resolve(rec['url'] as string);
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { url, child, exited, stderr: () => stderr };
}

async function post(url: string, body: Buffer): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/gzip' },
  });
  await r.arrayBuffer();
  return r.status;
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${what} did not happen within ${ms} ms`);
}

test(
  'two receivers, one store: the same bundle counts once; receivers survive a PostgreSQL restart and a SIGKILL',
  { skip, timeout: 300_000 },
  async () => {
    const url = server!.createDatabase();
    const inboxA = join(tmp, 'a');
    const inboxB = join(tmp, 'b');
    const a = await startServe(inboxA, url);
    const b = await startServe(inboxB, url);
    const probe: PostgresFleetStore = await openPostgresStore(url, 'probe');
    try {
      // 1. The same bundle to both receivers at once: one 201 (accepted), one 200 (duplicate).
      const same = gz(syntheticBundle(base, 1, 50));
      const statuses = await Promise.all([post(a.url, same), post(b.url, same)]);
      assert.deepEqual(statuses.sort(), [200, 201]);
      assert.equal(await probe.count(), 1);
      // And again, later, to either: a duplicate.
      assert.equal(await post(b.url, same), 200);
      assert.equal(await post(a.url, same), 200);

      // 2. 40 bundles, each sent to both receivers: 40 stored.
      const many = Array.from({ length: 40 }, (_, i) => gz(syntheticBundle(base, 100 + i, 50)));
      const answers = await Promise.all(many.flatMap((x) => [post(a.url, x), post(b.url, x)]));
      assert.equal(answers.filter((s) => s === 201).length, 40);
      assert.equal(answers.filter((s) => s === 200).length, 40);
      assert.equal(await probe.count(), 41);

      // 3. PostgreSQL restarted while uploads keep arriving: every upload is answered 201
      //    (accepted = on disk in the inbox) and every accepted one reaches the store.
      const during = Array.from({ length: 12 }, (_, i) => gz(syntheticBundle(base, 200 + i, 50)));
      const sending = (async () => {
        const out: number[] = [];
        for (const [i, x] of during.entries()) {
          out.push(await post(i % 2 ? a.url : b.url, x));
          await new Promise((r) => setTimeout(r, 150));
        }
        return out;
      })();
      await new Promise((r) => setTimeout(r, 300));
      server!.stop();
      await new Promise((r) => setTimeout(r, 1500));
      server!.start();
      assert.deepEqual(
        await sending,
        during.map(() => 201),
      );
      await eventually('all 53 bundles in the store after the restart', async () => {
        try {
          return (await probe.count()) === 53;
        } catch {
          return false;
        }
      });

      // 4. A receiver killed with SIGKILL: a file it wrote into its inbox but did not ingest
      //    (the window between fsync and INSERT; placed here as a killed receiver leaves it) is
      //    ingested when it starts again, and a client's retry after the kill counts once.
      a.child.kill('SIGKILL');
      await a.exited;
      const orphan = syntheticBundle(base, 300, 50);
      writeFileSync(join(inboxA, 'orphan.json.gz'), gz(orphan));
      const a2 = await startServe(inboxA, url);
      try {
        assert.equal(await probe.count(), 54, 'the orphaned inbox file was ingested at start');
        assert.equal(await post(a2.url, gz(orphan)), 200, 'a client retrying it gets a duplicate');
        assert.equal(await post(a2.url, many[0]!), 200);
      } finally {
        a2.child.kill('SIGTERM');
        await a2.exited;
      }
      assert.equal(await probe.count(), 54);
      // The receivers wrote each accepted bundle to disk: nothing is only in memory.
      const files = readdirSync(inboxA).length + readdirSync(inboxB).length;
      assert.ok(files >= 54, `${files} inbox files`);
    } finally {
      await probe.close();
      b.child.kill('SIGTERM');
      a.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
    }
  },
);

test(
  'aggregate --store killed with SIGKILL mid-ingest: a rerun completes, nothing counted twice',
  { skip, timeout: 300_000 },
  async () => {
    const url = server!.createDatabase();
    const dir = join(tmp, 'bundles');
    mkdirSync(dir, { recursive: true });
    const N = 4000;
    for (let i = 0; i < N; i++)
      writeFileSync(
        join(dir, `b${String(i).padStart(5, '0')}.json.gz`),
        gz(syntheticBundle(base, i, 200)),
      );
    const probe = await openPostgresStore(url, 'probe');
    try {
      const [cmd, ...pre] = cliCommand();
      const child = spawn(cmd!, [...pre, 'aggregate', '--store', url, '--json', dir], {
        stdio: 'ignore',
      });
      const exited = new Promise((r) => child.on('exit', r));
      // Kill it once some batches are committed and before all of them are.
      let seen = 0;
      await eventually(
        'a first committed batch',
        async () => (seen = await probe.count()) > 0,
        120_000,
      );
      child.kill('SIGKILL');
      await exited;
      const afterKill = await probe.count();
      assert.ok(afterKill < N, `killed before the end (${afterKill} of ${N}; first seen ${seen})`);
      assert.equal(
        afterKill % 500,
        0,
        'only whole batches (500 bundles, one transaction each) survive',
      );
      const rerun = spawnSync(cmd!, [...pre, 'aggregate', '--store', url, '--json', dir], {
        encoding: 'utf8',
        timeout: 240_000,
      });
      assert.equal(rerun.status, 0, rerun.stderr);
      const doc = JSON.parse(rerun.stdout) as { ingest: { added: number; unchanged: number } };
      assert.equal(doc.ingest.added, N - afterKill);
      assert.equal(doc.ingest.unchanged, afterKill);
      assert.equal(await probe.count(), N);
      // The rollups equal one SQLite ingest of the same files.
      const lite = openSqliteBackend(join(tmp, 'ref.db'));
      await ingestFiles(lite, listBundleFiles([dir]));
      const strip = (r: Awaited<ReturnType<typeof lite.rank>>) =>
        r.groups.map((g) => ({
          ...g,
          signatures: g.signatures.map((x) => ({ ...x, exampleStack: [] })),
        }));
      assert.deepEqual(
        strip(await probe.rank({ top: 1000 })),
        strip(await lite.rank({ top: 1000 })),
      );
      await lite.close();
    } finally {
      await probe.close();
    }
  },
);
