// The web view's breakdown class filter and the signature page's breakdown classes: a store made
// by the real ingest from the format 2 fixture (real recorder breakdowns) on two machines and a
// format 1 bundle, read by the real SQLite reader, served by the real server, and the page
// driven in headless Chromium (Debian's package, playwright-core): choosing a breakdown class
// changes the numbers to what the bundles say.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { bundleHash } from '../../src/bundle/content-hash.js';
import type { Bundle } from '../../src/bundle/schema.js';
import { openFleetStore } from '../../src/bundle/store.js';
import { fixtureJson } from '../../src/bundle/test-fixtures.js';
import { validateBundle } from '../../src/bundle/validate.js';
import type { FleetReader } from '../../src/web/fleet-reader.js';
import { openSqliteFleetReader } from '../../src/web/sqlite-fleet-reader.js';
import { parseFilter } from '../../src/web/web-query.js';
import { startWebServer } from '../../src/web/web-server.js';

const CHROMIUM = process.env['XRUNHUNT_CHROMIUM'] ?? '/usr/bin/chromium';
const noChromium = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed: apt-get install chromium (scripts/install-deps.sh does)`;

const load = (name: string): Bundle => validateBundle(fixtureJson(name));
const dir = mkdtempSync(join(tmpdir(), 'xrh-web-bd-'));
const db = join(dir, 'fleet.db');
const bundles: Bundle[] = [];
let reader: FleetReader;

before(() => {
  const a = load('../bundles-format-2/session-v2-breakdown.json');
  const b = load('../bundles-format-2/session-v2-breakdown.json');
  b.machineId = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
  bundles.push(a, b, load('session-lab-test-lockup.json.gz'));
  const s = openFleetStore(db);
  s.ingest(
    bundles.map((x) => ({ bundle: x, hash: bundleHash(x), source: 't' })),
    0,
  );
  s.close();
  reader = openSqliteFleetReader(db);
});
after(async () => {
  await reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Events of the bundles whose breakdown has class `cls` (the oracle: no SQL, no store code). */
const withClass = (cls: string) =>
  bundles.flatMap((b) => b.events.filter((e) => e.breakdown?.cls === cls));

test('reader: the breakdown filter keeps the events of that class, of every offender class', async () => {
  const values = await reader.filterValues();
  assert.deepEqual(values.breakdownClasses, [
    { value: 'blocked-by-task', count: withClass('blocked-by-task').length },
    { value: 'irq-latency', count: withClass('irq-latency').length },
  ]);
  const r = await reader.ranking({
    filter: parseFilter(new URLSearchParams('breakdown=blocked-by-task')),
  });
  const expected = withClass('blocked-by-task');
  assert.equal(
    r.rows.reduce((s, x) => s + x.incidents, 0),
    expected.length,
  );
  // One kernel signature and one detector-only row (event 3 is detector-only in the fixture).
  assert.deepEqual(r.rows.map((x) => x.class).sort(), ['detector-only', 'kernel']);
  const kernelSig = expected.find((e) => e.offender.class === 'kernel')!.offender.signature!;
  const page = await reader.signature({ signature: kernelSig, filter: {} });
  const ofSig = new Map<string, number>();
  for (const e of bundles.flatMap((b) => b.events))
    if (e.offender.signature === kernelSig && e.breakdown)
      ofSig.set(e.breakdown.cls, (ofSig.get(e.breakdown.cls) ?? 0) + 1);
  assert.ok(ofSig.size > 0);
  assert.deepEqual(
    page?.breakdownClasses,
    [...ofSig]
      .map(([value, count]) => ({ value, count }))
      .sort((x, y) => y.count - x.count || x.value.localeCompare(y.value)),
  );
  assert.throws(
    () => parseFilter(new URLSearchParams('breakdown=bad-luck')),
    /bad query parameter breakdown=bad-luck: expected one of irq-latency, blocked-by-task/,
  );
});

describe('breakdown class filter in headless Chromium', { skip: noChromium }, () => {
  let browser: Browser;
  let web: Awaited<ReturnType<typeof startWebServer>>;
  before(async () => {
    web = await startWebServer({ reader, host: '127.0.0.1', port: 0, onError: () => undefined });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await web?.close();
  });

  test('choosing a breakdown class reloads with its incidents; the signature page lists its classes', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(web.url, { waitUntil: 'load' });
    const options = await page.locator('select[name="breakdown"] option').allTextContents();
    assert.ok(
      options.some((o) => o.startsWith('irq-latency')),
      options.join(' / '),
    );
    await Promise.all([
      page.waitForURL(/breakdown=irq-latency/),
      page.selectOption('select[name="breakdown"]', 'irq-latency'),
    ]);
    await page.waitForLoadState('load');
    const cells = await page.locator('#ranking tbody [data-field="incidents"]').allTextContents();
    assert.equal(
      cells.map(Number).reduce((s, n) => s + n, 0),
      withClass('irq-latency').length,
    );
    const link = page.locator('#ranking tbody tr a').first();
    await Promise.all([page.waitForURL(/\/signature\?/), link.click()]);
    await page.waitForLoadState('load');
    const facet = await page.locator('[data-facet="breakdownClasses"] td').allTextContents();
    assert.deepEqual(facet, ['irq-latency', String(withClass('irq-latency').length)]);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
