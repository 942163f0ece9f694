// The web view over the shared PostgreSQL store through the real CLI, against a real
// PostgreSQL 15 server (a throwaway cluster): `web --store URL` and `web` with
// $XRUNHUNT_STORE serve pages with the store's counts; `serve --web --store URL` serves the
// pages on the receiver's port and still accepts an upload, which the pages then count.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { ingestFiles, listBundleFiles } from '../../src/bundle/ingest.js';
import { openPostgresStore } from '../../src/store/postgres-store.js';
import { redactUrl } from '../../src/store/store-spec.js';
import type { FleetRankingResult } from '../../src/web/fleet-reader.js';
import { openSqliteFleetReader } from '../../src/web/sqlite-fleet-reader.js';
import { buildTestFleet, type TestFleet } from '../../src/web/test-fleet.js';
import { cliCommand, runCli } from '../helpers/cli.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

interface Running {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

/** Starts `xrunhunt ...args --json` and resolves once it says where it listens. */
async function start(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const [cmd, ...pre] = cliCommand();
  const child = spawn(cmd!, [...pre, ...args, '--listen', '127.0.0.1:0', '--json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
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
      const rec = JSON.parse(l) as { type: string; url?: string };
      if (rec.type === 'listening') resolve(rec.url!);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const bundlesOnPage = (html: string): number =>
  Number(/data-field="bundles">(\d+)</.exec(html)?.[1] ?? NaN);

async function ranking(base: string): Promise<FleetRankingResult> {
  const r = await fetch(new URL('/api/ranking?limit=1000', base));
  assert.equal(r.status, 200);
  return (await r.json()) as FleetRankingResult;
}

describe('the web view over PostgreSQL through the CLI', { skip: postgresSkip() }, () => {
  let pgServer: TestPostgres;
  let fleet: TestFleet;
  let url: string;

  before(async () => {
    pgServer = await startTestPostgres();
    fleet = await buildTestFleet(40);
    url = pgServer.createDatabase();
    const store = await openPostgresStore(url, redactUrl(url));
    const report = await ingestFiles(store, listBundleFiles([join(fleet.dir, 'inbox')]));
    await store.close();
    assert.equal(report.added, 40);
  });
  after(() => {
    pgServer?.destroy();
    fleet?.remove();
  });

  for (const how of ['--store', '$XRUNHUNT_STORE'] as const) {
    test(`web with ${how} serves the pages from PostgreSQL`, async () => {
      const web = await start(
        how === '--store' ? ['web', '--store', url] : ['web'],
        how === '--store' ? {} : { XRUNHUNT_STORE: url },
      );
      try {
        const page = await fetch(web.url);
        assert.equal(page.status, 200);
        assert.equal(bundlesOnPage(await page.text()), 40);
        const sqlite = openSqliteFleetReader(fleet.db);
        try {
          assert.deepEqual(
            await ranking(web.url),
            await sqlite.ranking({ filter: {}, limit: 1000 }),
          );
        } finally {
          await sqlite.close();
        }
        const top = (await ranking(web.url)).rows.find((r) => r.signature !== null)!;
        const sig = await fetch(
          new URL(`/signature?sig=${encodeURIComponent(top.signature!)}`, web.url),
        );
        assert.equal(sig.status, 200);
        assert.equal((await fetch(new URL('/trend', web.url))).status, 200);
        assert.equal((await fetch(new URL('/flame', web.url))).status, 200);
      } finally {
        assert.equal(await web.stop(), 0, web.stderr());
      }
      assert.doesNotMatch(web.stderr(), new RegExp(pgServer.password));
    });
  }

  test('web refuses a database without a fleet store, naming no password', async () => {
    const empty = pgServer.createDatabase();
    const r = await runCli(['web', '--store', empty, '--listen', '127.0.0.1:0', '-d', '1s']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /holds no xrunhunt fleet store/);
    assert.match(r.stderr, /hint: /);
    assert.doesNotMatch(r.stderr, new RegExp(pgServer.password));
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  });

  test('serve --web serves the pages on the receiver port and still takes an upload', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'xrh-serve-web-'));
    const store = pgServer.createDatabase();
    const rx = await start(['serve', '--inbox', join(tmp, 'inbox'), '--store', store, '--web']);
    try {
      const empty = await fetch(rx.url);
      assert.equal(empty.status, 200);
      assert.match(empty.headers.get('content-type') ?? '', /text\/html/);
      assert.equal(bundlesOnPage(await empty.text()), 0);
      assert.equal((await fetch(new URL('/healthz', rx.url))).status, 200);
      const up = await fetch(rx.url, {
        method: 'POST',
        headers: { 'content-type': 'application/gzip' },
        body: gzipSync(JSON.stringify(fleet.bundles[0])),
      });
      assert.equal(up.status, 201, await up.text());
      const after = await ranking(rx.url);
      assert.equal(after.totals.bundles, 1);
      assert.equal(after.totals.machines, 1);
      assert.equal(bundlesOnPage(await (await fetch(rx.url)).text()), 1);
      // A NUL in a query value was a 500 (PostgreSQL refuses it in text); now a clear 400.
      for (const path of ['/?kernel=%00', '/api/ranking?card=a%00b', '/signature?sig=%00']) {
        const r = await fetch(new URL(path, rx.url));
        assert.equal(r.status, 400, path);
        assert.match(await r.text(), /control characters/);
      }
      // A bundle with NUL in its strings was answered 201 but never reached the store.
      const nul = structuredClone(fleet.bundles[1]!);
      nul.host.kernelRelease = '6.1.0-nul\u0000x';
      const up2 = await fetch(rx.url, { method: 'POST', body: JSON.stringify(nul) });
      assert.equal(up2.status, 201, await up2.text());
      const two = await ranking(rx.url);
      assert.equal(two.totals.bundles, 2);
      const kernels = (await (await fetch(new URL('/api/filters', rx.url))).json()) as {
        kernelReleases: { value: string }[];
      };
      assert.ok(kernels.kernelReleases.some((k) => k.value === '6.1.0-nul\ufffdx'));
    } finally {
      assert.equal(await rx.stop(), 0, rx.stderr());
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('serve --web without a store is a usage error', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'xrh-serve-web-'));
    try {
      const r = await runCli(['serve', '--inbox', join(tmp, 'inbox'), '--web', '-d', '1s'], {
        env: { XRUNHUNT_STORE: '' },
      });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /serve --web needs a fleet store/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
