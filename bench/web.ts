// Web view benchmark (not a test): the fleet page's load time in headless Chromium at a large
// store, beside the store query time behind it, and beside a peer measured in the same run:
// the same HTML bytes served as a static file (what the browser and HTTP alone cost).
//   cold: a fresh server and reader (nothing cached), the first load of /
//   warm: the same URL again (answers reused until the store changes)
//   filtered (cold): /?card=… (a filter the rollups cannot answer: a scan of the events)
// The store is built once through the store's real ingest (bench/web-store.ts) and reused.
// Goal: fleet page < 2 s at 1,000,000 bundles. SYNTHETIC fleet: numbers show scaling only.
// Usage: npm run bench:web [-- --count 1000000 | --db FILE]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { validateBundle } from '../src/bundle/validate.js';
import { openSqliteFleetReader } from '../src/web/sqlite-fleet-reader.js';
import { startWebServer } from '../src/web/web-server.js';
import { ensureWebBenchStore } from './web-store.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const count = Number(arg('--count') ?? NaN) || 1_000_000;
const CHROMIUM = process.env['XRUNHUNT_CHROMIUM'] ?? '/usr/bin/chromium';
const GOAL_MS = 2000;

let db = arg('--db');
if (!db) {
  db = `/var/tmp/xrh-web-bench/fleet-${count}.db`;
  const base = validateBundle(
    JSON.parse(
      readFileSync(
        new URL('../test/fixtures/bundles/session-ext4-writeback.json', import.meta.url),
        'utf8',
      ),
    ),
  );
  const built = ensureWebBenchStore(db, count, base, (n) =>
    console.log(`  building: ${n} bundles`),
  );
  if (built.built) console.log(`built ${db} in ${built.seconds.toFixed(0)} s`);
}
if (!existsSync(CHROMIUM))
  throw new Error(`${CHROMIUM} is not installed (apt-get install chromium)`);

const ms = (t0: number): number => performance.now() - t0;

// 1. Store queries behind the fleet page, fresh reader (wall and this process's CPU).
let reader = openSqliteFleetReader(db);
const t0 = performance.now();
let cpu0 = process.cpuUsage();
const ranking = await reader.ranking({ filter: {}, limit: 50 });
await reader.filterValues();
const queryMs = ms(t0);
const c = process.cpuUsage(cpu0);
const queryCpuMs = (c.user + c.system) / 1000;
await reader.close();

// 2. Chromium: cold and warm fleet page, a filtered page, the static peer.
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
reader = openSqliteFleetReader(db);
const web = await startWebServer({ reader, host: '127.0.0.1', port: 0 });
const page = await browser.newPage();
const load = async (url: string): Promise<number> => {
  const t = performance.now();
  await page.goto(url, { waitUntil: 'load' });
  return ms(t);
};
const coldMs = await load(web.url);
const html = await (await fetch(web.url)).text();
const warmMs = await load(web.url);
cpu0 = process.cpuUsage();
const filteredMs = await load(`${web.url}?card=HDA+Intel+PCH`);
const fc = process.cpuUsage(cpu0);
const peer = createServer((_, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html);
});
await new Promise<void>((done) => peer.listen(0, '127.0.0.1', done));
const peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/`;
await load(peerUrl);
const peerMs = await load(peerUrl);
await browser.close();
await web.close();
await reader.close();
peer.close();

const row = (name: string, value: string, goal: string, ok: boolean | null): string =>
  `  ${name.padEnd(40)}${value.padStart(12)}   ${goal.padEnd(12)}${ok === null ? '' : ok ? 'ok' : 'MISSED'}`;
console.log('');
console.log(
  `store: ${ranking.totals.bundles} bundles, ${ranking.totals.machines} machines, ${ranking.totals.classes.kernel} kernel-code events; page ${(html.length / 1024).toFixed(0)} KiB`,
);
console.log(
  row(
    'store queries (ranking + filter values)',
    `${queryMs.toFixed(0)} ms`,
    `CPU ${queryCpuMs.toFixed(0)} ms`,
    null,
  ),
);
console.log(
  row('fleet page load, cold', `${coldMs.toFixed(0)} ms`, `< ${GOAL_MS} ms`, coldMs < GOAL_MS),
);
console.log(
  row(
    'fleet page load, warm (reload)',
    `${warmMs.toFixed(0)} ms`,
    `< ${GOAL_MS} ms`,
    warmMs < GOAL_MS,
  ),
);
console.log(
  row(
    'filtered page (card), cold',
    `${filteredMs.toFixed(0)} ms`,
    `CPU ${((fc.user + fc.system) / 1000).toFixed(0)} ms`,
    null,
  ),
);
console.log(row('peer: same HTML as a static file', `${peerMs.toFixed(0)} ms`, '(peer)', null));
console.log(row('cold page vs peer', `${(coldMs / peerMs).toFixed(1)}×`, '(ratio)', null));
console.log(row('warm page vs peer', `${(warmMs / peerMs).toFixed(1)}×`, '(ratio)', null));
console.log(
  `  (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores; synthetic fleet)`,
);
