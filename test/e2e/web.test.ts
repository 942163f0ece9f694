// The web view as a person sees it: a store made by the real ingest (synthetic fleet plus one
// bundle whose every string is hostile markup), served by the real server, opened in
// headless Chromium (Debian's package, driven by playwright-core). Every number on a page is
// checked against a count made straight from the bundles; no request may leave the server;
// no console error; nothing from a bundle runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Bundle } from '../../src/bundle/schema.js';
import { openSqliteFleetReader } from '../../src/web/sqlite-fleet-reader.js';
import { HOSTILE, buildTestFleet, type TestFleet } from '../../src/web/test-fleet.js';
import { CONTENT_SECURITY_POLICY, startWebServer } from '../../src/web/web-server.js';
import type { FleetRankingResult } from '../../src/web/fleet-reader.js';
import type { FleetReader } from '../../src/web/fleet-reader.js';
import { repoRoot } from '../helpers/cli.js';

const CHROMIUM = process.env['XRUNHUNT_CHROMIUM'] ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed: apt-get install chromium (scripts/install-deps.sh does)`;
const RESULTS = join(repoRoot, 'test-results');

interface Opened {
  page: Page;
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests to anywhere but the server under test (there must be none). */
  foreign: string[];
  /** Every path requested from the server. */
  paths: string[];
  dialogs: string[];
  csp: string | undefined;
  status: number;
}

const kernelEvents = (bundles: Bundle[]) =>
  bundles.flatMap((b) =>
    b.events.filter((e) => e.offender.class === 'kernel').map((e) => ({ b, e })),
  );

describe('web view in headless Chromium', { skip }, () => {
  let fleet: TestFleet;
  let reader: FleetReader;
  let web: Awaited<ReturnType<typeof startWebServer>>;
  let browser: Browser;
  const serverErrors: unknown[] = [];

  before(async () => {
    mkdirSync(RESULTS, { recursive: true });
    fleet = await buildTestFleet(400, { hostile: true });
    reader = openSqliteFleetReader(fleet.db);
    web = await startWebServer({
      reader,
      host: '127.0.0.1',
      port: 0,
      onError: (err) => serverErrors.push(err),
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });

  after(async () => {
    await browser?.close();
    await web?.close();
    await reader?.close();
    fleet?.remove();
  });

  async function open(path: string): Promise<Opened> {
    const page = await browser.newPage({ viewport: { width: 1250, height: 900 } });
    const o: Opened = {
      page,
      consoleErrors: [],
      pageErrors: [],
      foreign: [],
      paths: [],
      dialogs: [],
      csp: undefined,
      status: 0,
    };
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') o.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => o.pageErrors.push(e.message));
    page.on('request', (r) => {
      if (r.url().startsWith(web.url)) o.paths.push(new URL(r.url()).pathname);
      else o.foreign.push(r.url());
    });
    page.on('dialog', (d) => {
      o.dialogs.push(d.message());
      void d.dismiss();
    });
    const res = await page.goto(new URL(path, web.url).href, { waitUntil: 'load' });
    o.csp = res?.headers()['content-security-policy'];
    o.status = res?.status() ?? 0;
    return o;
  }

  async function assertClean(o: Opened, shot: string): Promise<void> {
    await o.page.screenshot({ path: join(RESULTS, shot), fullPage: true });
    assert.deepEqual(o.consoleErrors, [], 'console errors');
    assert.deepEqual(o.pageErrors, [], 'page errors');
    assert.deepEqual(o.foreign, [], 'requests to other origins');
    assert.deepEqual(o.dialogs, [], 'dialogs');
    assert.equal(o.csp, CONTENT_SECURITY_POLICY, 'CSP header');
    assert.doesNotMatch(o.csp ?? '', /unsafe-inline|unsafe-eval|\*/);
    assert.equal(await o.page.locator('script:not([src])').count(), 0, 'no inline script');
    assert.equal(await o.page.evaluate('window.__pwned'), undefined, 'no bundle script ran');
    for (const fig of await o.page.locator('figure[data-chart]').all()) {
      assert.equal(
        await fig.locator('[data-point]').count(),
        Number(await fig.getAttribute('data-points')),
        `chart ${await fig.getAttribute('data-chart')}: drawn vs declared points`,
      );
    }
    assert.deepEqual(serverErrors, [], 'server errors');
  }

  const field = async (o: Opened, name: string): Promise<string> =>
    (await o.page.locator(`#totals [data-field="${name}"]`).textContent()) ?? '';

  test('the fleet page loads clean and its totals are the store’s counts', async () => {
    const o = await open('/');
    await assertClean(o, 'web-fleet.png');
    assert.equal(o.status, 200);
    assert.deepEqual([...new Set(o.paths)].sort(), [
      '/',
      '/assets/icon.svg',
      '/assets/web.css',
      '/assets/web.js',
    ]);
    assert.equal(await field(o, 'bundles'), String(fleet.bundles.length));
    assert.equal(
      await field(o, 'machines'),
      String(new Set(fleet.bundles.map((b) => b.machineId)).size),
    );
    assert.equal(await field(o, 'kernel'), String(kernelEvents(fleet.bundles).length));
    // The first row is the most common signature, with its count.
    const counts = new Map<string, number>();
    for (const { e } of kernelEvents(fleet.bundles))
      counts.set(e.offender.signature!, (counts.get(e.offender.signature!) ?? 0) + 1);
    const [topSig, topN] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const first = o.page.locator('#ranking tbody tr').first();
    assert.equal(await first.getAttribute('data-signature'), topSig);
    assert.equal(await first.locator('[data-field="incidents"]').textContent(), String(topN));
    await o.page.close();
  });

  test('choosing a kernel in the filter reloads with that kernel’s counts, in a shareable URL', async () => {
    const o = await open('/');
    const release = '6.1.0-28-amd64';
    await Promise.all([
      o.page.waitForURL(/kernel=6\.1\.0-28-amd64/),
      o.page.selectOption('select[name="kernel"]', release),
    ]);
    await o.page.waitForLoadState('load');
    const mine = fleet.bundles.filter((b) => b.host.kernelRelease === release);
    assert.ok(mine.length > 0 && mine.length < fleet.bundles.length);
    assert.equal(await field(o, 'bundles'), String(mine.length));
    assert.equal(await field(o, 'kernel'), String(kernelEvents(mine).length));
    // Empty controls are left out of the URL; the same URL gives the same page and JSON.
    const url = o.page.url();
    assert.doesNotMatch(url, /preempt=|card=/);
    const api = (await (
      await fetch(new URL(`/api/ranking?${new URL(url).search.slice(1)}`, web.url))
    ).json()) as FleetRankingResult;
    assert.equal(api.totals.bundles, mine.length);
    const shown = await o.page.locator('#ranking tbody [data-field="incidents"]').allTextContents();
    assert.deepEqual(
      shown,
      api.rows.map((r) => String(r.incidents)),
    );
    await assertClean(o, 'web-fleet-kernel.png');
    await o.page.close();
  });

  test('card and capture-backend filters change the numbers to the bundles’ counts', async () => {
    const o = await open('/?card=HDA+Intel+PCH&backend=kprobe');
    const mine = fleet.bundles.filter(
      (b) => b.host.cards[0]!.name === 'HDA Intel PCH' && b.params?.captureBackend === 'kprobe',
    );
    assert.ok(mine.length > 0);
    assert.equal(await field(o, 'bundles'), String(mine.length));
    assert.equal(await field(o, 'kernel'), String(kernelEvents(mine).length));
    assert.equal(await o.page.locator('select[name="card"] option[selected]').count(), 1);
    await assertClean(o, 'web-fleet-card.png');
    await o.page.close();
  });

  test('a signature page (followed from the ranking) matches the store’s counts', async () => {
    const o = await open('/?preempt=full');
    const link = o.page.locator('#ranking tbody tr').first().locator('a');
    const sig = (await link.textContent()) ?? '';
    await Promise.all([o.page.waitForURL(/\/signature\?/), link.click()]);
    await o.page.waitForLoadState('load');
    const kept = fleet.bundles.filter((b) => b.host.preempt === 'full');
    const mine = kernelEvents(kept).filter(({ e }) => e.offender.signature === sig);
    assert.equal(await field(o, 'incidents'), String(mine.length));
    assert.equal(
      await field(o, 'machines'),
      String(new Set(mine.map(({ b }) => b.machineId)).size),
    );
    for (const row of await o.page.locator('#kernels tbody tr').all()) {
      const release = (await row.getAttribute('data-release')) ?? '';
      const on = mine.filter(({ b }) => b.host.kernelRelease === release);
      assert.equal(await row.locator('[data-field="incidents"]').textContent(), String(on.length));
      assert.equal(
        await row.locator('[data-field="bundles"]').textContent(),
        String(kept.filter((b) => b.host.kernelRelease === release).length),
      );
    }
    assert.ok((await o.page.locator('figure[data-chart="flame"] [data-point]').count()) > 3);
    await assertClean(o, 'web-signature.png');
    await o.page.close();
  });

  test('hostile bundle strings show as text on every page and run nothing', async () => {
    const hostile = fleet.bundles.find((b) => b.machineId === 'h'.repeat(32))!;
    const sig = hostile.events[0]!.offender.signature!;
    const q = new URLSearchParams({ kernel: hostile.host.kernelRelease, class: 'kernel' });
    for (const [path, shot] of [
      [`/?${q}`, 'web-hostile-fleet.png'],
      [`/signature?${q}&sig=${encodeURIComponent(sig)}`, 'web-hostile-signature.png'],
      [`/trend?${q}`, 'web-hostile-trend.png'],
      [`/flame?${q}`, 'web-hostile-flame.png'],
    ] as const) {
      const o = await open(path);
      assert.equal(o.status, 200, path);
      await assertClean(o, shot);
      assert.equal(await o.page.locator('img').count(), 0, `${path}: no element from a bundle`);
      const body = (await o.page.locator('body').textContent()) ?? '';
      assert.ok(body.includes(HOSTILE.slice(0, 20)), `${path}: the markup shows as text`);
      await o.page.close();
    }
  });

  test('trend and flame pages load clean and draw every release and stack', async () => {
    const t = await open('/trend?top=3');
    await assertClean(t, 'web-trend.png');
    const releases = new Set(fleet.bundles.map((b) => b.host.kernelRelease)).size;
    assert.equal(await t.page.locator('#trend-table tbody tr').count(), releases);
    assert.equal(
      Number(await t.page.locator('figure[data-chart="trend"]').getAttribute('data-points')),
      4 * releases,
    );
    await t.page.close();
    const f = await open('/flame');
    await assertClean(f, 'web-flame.png');
    const root = f.page.locator('figure[data-chart="flame"] g.flame').first();
    assert.equal(await root.getAttribute('data-count'), String(kernelEvents(fleet.bundles).length));
    await f.page.close();
  });

  test('bad filter values get a 400 page that says what was expected; writes are refused', async () => {
    const o = await open('/?class=kernal');
    assert.equal(o.status, 400);
    assert.match(
      (await o.page.locator('.error').textContent()) ?? '',
      /class=kernal: expected one of kernel, idle, user, none/,
    );
    assert.deepEqual(o.pageErrors, []);
    await o.page.close();
    const post = await fetch(new URL('/', web.url), { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    const api = await fetch(new URL('/api/ranking?since=soon', web.url));
    assert.equal(api.status, 400);
    assert.match(((await api.json()) as { error: string }).error, /since=soon/);
  });
});
