// The HTML reports as a person sees them: made by the real CLI (or the command writers),
// opened in headless Chromium (Debian's package, driven by playwright-core), with no console
// errors, no network request, no script from the input, and every chart holding the data
// points its input implies. A full-page screenshot of each is kept under test-results/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import type { Bundle } from '../../src/bundle/schema.js';
import { writeCompareHtml } from '../../src/report-html/index.js';
import { repoRoot, runCli } from '../helpers/cli.js';

const CHROMIUM = process.env['XRUNHUNT_CHROMIUM'] ?? '/usr/bin/chromium';
const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed: apt-get install chromium (scripts/install-deps.sh does)`;
const RESULTS = join(repoRoot, 'test-results');
const LOGS = join(repoRoot, 'test/fixtures/kernel-logs');
const BUNDLES = join(repoRoot, 'test/fixtures/bundles');

interface PageFacts {
  consoleErrors: string[];
  pageErrors: string[];
  /** Every request other than the report file itself (there must be none). */
  requests: string[];
  dialogs: string[];
  charts: { id: string; declared: number; points: number }[];
  events: number;
  marks: string[];
  pwned: unknown;
}

function readBundle(name: string): Bundle {
  const bytes = readFileSync(join(BUNDLES, name));
  return JSON.parse((name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')) as Bundle;
}

describe('HTML reports in headless Chromium', { skip }, () => {
  let browser: Browser;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'xrunhunt-html-'));
    mkdirSync(RESULTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });

  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a report, collects what went wrong, counts chart points, keeps a screenshot. */
  async function open(file: string, shot: string): Promise<PageFacts> {
    const page = await browser.newPage({ viewport: { width: 1050, height: 900 } });
    const facts: PageFacts = {
      consoleErrors: [],
      pageErrors: [],
      requests: [],
      dialogs: [],
      charts: [],
      events: 0,
      marks: [],
      pwned: undefined,
    };
    const url = pathToFileURL(file).href;
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') facts.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => facts.pageErrors.push(e.message));
    page.on('request', (r) => {
      if (r.url() !== url) facts.requests.push(r.url());
    });
    page.on('dialog', (d) => {
      facts.dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(url, { waitUntil: 'load' });
    // Queried through locators (this file is typechecked without DOM types).
    for (const fig of await page.locator('figure[data-chart]').all()) {
      facts.charts.push({
        id: (await fig.getAttribute('data-chart')) ?? '',
        declared: Number(await fig.getAttribute('data-points')),
        points: await fig.locator('[data-point]').count(),
      });
    }
    facts.events = await page.locator('details.event').count();
    facts.marks = await page.locator('details.event mark').allTextContents();
    facts.pwned = await page.evaluate('window.pwned');
    await page.screenshot({ path: join(RESULTS, shot), fullPage: true });
    await page.close();
    return facts;
  }

  function assertClean(f: PageFacts): void {
    assert.deepEqual(f.consoleErrors, [], 'console errors');
    assert.deepEqual(f.pageErrors, [], 'page errors');
    assert.deepEqual(f.requests, [], 'network requests');
    assert.deepEqual(f.dialogs, [], 'dialogs');
    for (const c of f.charts)
      assert.equal(c.points, c.declared, `chart ${c.id}: drawn vs declared points`);
  }

  const chart = (f: PageFacts, id: string) => {
    const c = f.charts.find((x) => x.id === id);
    assert.ok(c, `chart ${id} present (have ${f.charts.map((x) => x.id).join(', ')})`);
    return c;
  };

  test('analyze --html: one bar per ranked offender, one collapsible stack per event', async () => {
    const logs = [
      '001-i386-2.6.8-ice1712-xrun-no-timestamp.txt',
      '017-x86_64-3.10.7-warning-in-usb-irq-stack-words-IRQ-EOI.txt',
      '010-x86_64-5.11-syzbot-lockdep-recursive-in-snd_pcm_period_elapsed-IRQ-inline-frames.txt',
    ].map((l) => join(LOGS, l));
    const file = join(dir, 'analyze.html');
    const r = await runCli(['analyze', ...logs, '--html', file, '--json']);
    assert.equal(r.code, 2, r.stderr);
    const json = JSON.parse(r.stdout) as {
      events: { offender: { class: string } }[];
      offenders: unknown[];
    };
    assert.ok(json.offenders.length > 0);
    const f = await open(file, 'analyze-report.png');
    assertClean(f);
    assert.equal(chart(f, 'offenders').points, Math.min(15, json.offenders.length));
    assert.equal(f.events, json.events.length);
    assert.equal(f.marks.length, json.events.filter((e) => e.offender.class === 'kernel').length);
    assert.ok(
      !f.charts.some((c) => c.id === 'timeline'),
      'three logs have no common clock: no timeline',
    );
  });

  test('analyze --html of one timestamped log: its XRUN events on the kernel clock', async () => {
    const log = join(LOGS, 'lab-6.1-x86_64-shapes-dmesg.txt');
    const file = join(dir, 'analyze-one.html');
    const r = await runCli(['analyze', log, '--html', file, '--json']);
    assert.equal(r.code, 2, r.stderr);
    const json = JSON.parse(r.stdout) as { events: { time?: number }[] };
    const timed = json.events.filter((e) => e.time !== undefined).length;
    assert.ok(timed >= 2);
    const f = await open(file, 'analyze-one-log.png');
    assertClean(f);
    assert.equal(chart(f, 'timeline').points, timed);
    assert.equal(f.events, json.events.length);
  });

  test('compare: both runs overlaid on every chart', async () => {
    const a = readBundle('session-ext4-writeback.json');
    const b = readBundle('session-lab-test-lockup.json.gz');
    const file = join(dir, 'compare.html');
    const r = await runCli([
      'compare',
      join(BUNDLES, 'session-ext4-writeback.json'),
      join(BUNDLES, 'session-lab-test-lockup.json.gz'),
      '--html',
      file,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const f = await open(file, 'compare-report.png');
    assertClean(f);
    const placed = (x: Bundle) => x.xruns.filter((u) => u.kernelEventIndex !== null).length;
    assert.equal(
      chart(f, 'timeline').points,
      a.xruns.length + b.xruns.length + placed(a) + placed(b),
    );
    // Two offenders, one bar per run each (a zero is still a bar).
    assert.equal(chart(f, 'offenders').points, 4);
    // Headroom percentiles: five per run.
    assert.equal(chart(f, 'headroom').points, 10);
    assert.equal(f.events, a.events.length + b.events.length);
  });

  test('aggregate --html: the fleet ranking with incidents and machines per offender', async () => {
    const file = join(dir, 'fleet.html');
    const r = await runCli([
      'aggregate',
      join(BUNDLES, 'session-ext4-writeback.json'),
      join(BUNDLES, 'session-lab-test-lockup.json.gz'),
      '--db',
      join(dir, 'fleet.db'),
      '--html',
      file,
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { ranking: { groups: { signatures: unknown[] }[] } };
    const rows = doc.ranking.groups[0]!.signatures.length;
    const f = await open(file, 'aggregate-report.png');
    assertClean(f);
    assert.equal(chart(f, 'fleet').points, 2 * rows);
  });

  test('session --html on the null device: a real session, charts with its phases', async () => {
    const file = join(dir, 'session.html');
    const out = join(dir, 'session-out');
    const r = await runCli(
      [
        'session',
        '--device',
        'null',
        '--phases',
        'idle:1s,write:1s',
        '--out',
        out,
        '--html',
        file,
        '--json',
      ],
      { timeoutMs: 60_000 },
    );
    assert.ok(r.code === 0 || r.code === 2, r.stderr);
    const report = JSON.parse(r.stdout) as {
      xruns: unknown[];
      phases: { name: string }[];
      events: unknown[];
    };
    const f = await open(file, 'session-report.png');
    assertClean(f);
    assert.equal(chart(f, 'timeline').points, report.xruns.length + report.events.length);
    assert.deepEqual(
      report.phases.map((p) => p.name),
      ['idle', 'write'],
    );
    // The write phase moved bytes: one throughput bar.
    assert.equal(chart(f, 'throughput').points, 1);
    // One headroom sample per second of playback, in at most 10 buckets.
    const h = chart(f, 'headroom-histogram').points;
    assert.ok(h >= 1 && h <= 10, `headroom histogram buckets: ${h}`);
  });

  test('hostile bundle text is shown, never run', async () => {
    const evil = readBundle('session-ext4-writeback.json');
    const payload = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2"><svg onload="window.pwned=3">`;
    evil.events[1]!.frames[12] = payload;
    evil.events[1]!.offender.function = payload;
    evil.offenders[0]!.function = payload;
    evil.params!.device = payload;
    evil.warnings.push(payload);
    const file = join(dir, 'hostile.html');
    await writeCompareHtml(file, { bundle: evil, label: payload }, { bundle: evil, label: 'same' });
    const f = await open(file, 'hostile-report.png');
    assertClean(f);
    assert.equal(f.pwned, undefined);
    assert.ok(f.marks.includes(payload), 'the payload is displayed as text in the stack');
  });
});
