// Re-runs the web-view classes of issue 30 against the built CLI (bin/xrunhunt.js): stored XSS
// through every bundle string, the Content-Security-Policy of every answer, path traversal in
// URLs, and SQL injection / huge values through every query parameter. Hostile bundles go into
// a real SQLite store through `aggregate` (served by `web --db`) and into a throwaway
// PostgreSQL 15 cluster through uploads to `serve --store URL --web` (served on its port). It
// prints, per class, how many variants were tried and how many the code did not withstand, one
// line per failure. Not a test: a verification run, in temporary folders and on loopback.
// Usage: npm run build && node --import tsx bench/attack-issue30-web.ts [--list] [--no-pg]
import { createTallies, printTallies, record, type Tally } from './attack-tally.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import type { Bundle } from '../src/bundle/schema.js';
import { fixtureJson } from '../src/bundle/test-fixtures.js';
import { validateBundle } from '../src/bundle/validate.js';
import { syntheticWebBundle } from '../src/web/synthetic-web-fleet.js';
import { runProgram } from '../test/helpers/cli.js';
import { postgresSkip, startTestPostgres, type TestPostgres } from '../test/helpers/postgres.js';

const repo = fileURLToPath(new URL('../', import.meta.url));
const BIN = join(repo, 'bin/xrunhunt.js');
const CHROMIUM = process.env['XRUNHUNT_CHROMIUM'] ?? '/usr/bin/chromium';
const list = process.argv.includes('--list');
const withPg = !process.argv.includes('--no-pg') && postgresSkip() === false;
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-attack30-web-'));
const short = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 160);

const tallies = createTallies();
const tally = tallies.tally;

// ------------------------------------------------------------------ hostile bundles

/** Markup that must stay text; `N` becomes the variant's number (window.__pwned = N). */
const PAYLOADS: string[] = [
  '<img src=x onerror=window.__pwned=N>',
  '"><svg onload=window.__pwned=N>',
  "'><script>window.__pwned=N</script>",
  '</title></textarea></style></script><script>window.__pwned=N</script>',
  ']]><!--<script>window.__pwned=N</script>-->',
  'javascript:window.__pwned=N//" onmouseover="window.__pwned=N',
  '&lt;script&gt;window.__pwned=N&lt;/script&gt;&#x3c;b&#x3e;',
  '\u0000\u001b[2J\u2028<b\u0000 onclick=window.__pwned=N>',
  `<details open ontoggle=window.__pwned=N>${'A'.repeat(4000)}`,
];

/** Every string field a bundle carries (schema enums left out: validation refuses markup there). */
const FIELDS: string[] = [
  'tool.version',
  'host.kernelRelease',
  'host.kernelVersion',
  'host.arch',
  'host.cards[].id',
  'host.cards[].driver',
  'host.cards[].name',
  'params.device',
  'params.format',
  'params.rtPolicy',
  'params.phases',
  'phases[].name',
  'phases[].kind',
  'xruns[].phase',
  'events[].pcm',
  'events[].phase',
  'events[].offender.function',
  'events[].offender.module',
  'events[].offender.signature',
  'events[].frames[]',
  'rulesVersion',
  'warnings[]',
];

const marker = (p: number, f: number): number => 1000 + p * 100 + f;

function setPath(v: unknown, parts: string[], value: string): unknown {
  if (parts.length === 0) return value;
  const [head, ...rest] = parts;
  if (head === '[]') return Array.isArray(v) ? v.map((x) => setPath(x, rest, value)) : v;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (!(head! in o)) return v;
    if (rest.length === 0 && o[head!] !== null && typeof o[head!] !== 'string') return v;
    return { ...o, [head!]: setPath(o[head!], rest, value) };
  }
  return v;
}
const pathParts = (field: string): string[] =>
  field.split(/(?=\.|\[\])/).map((s) => (s.startsWith('.') ? s.slice(1) : s));

interface Hostile {
  bundle: Bundle;
  /** The payload's index, and the field's (-1: every field of an "all fields" bundle). */
  p: number;
  f: number;
}

/** Variants the bundle validation refuses (they cannot reach a store). */
const refused = new Set<number>();

/** One bundle per payload and field, plus one per payload with every field poisoned. */
function hostileBundles(): Hostile[] {
  const base = validateBundle(fixtureJson('session-ext4-writeback.json'));
  const out: Hostile[] = [];
  let i = 0;
  PAYLOADS.forEach((payload, p) => {
    const poison = (b: unknown, f: number): unknown =>
      setPath(b, pathParts(FIELDS[f]!), payload.replaceAll('N', String(marker(p, f))));
    let all = syntheticWebBundle(base, i++, 40) as unknown;
    FIELDS.forEach((_, f) => {
      const b = syntheticWebBundle(base, i++, 40) as unknown;
      try {
        out.push({ bundle: validateBundle(poison(b, f)), p, f });
        all = poison(all, f);
      } catch {
        refused.add(marker(p, f)); // validation refuses it: it never reaches a store
      }
    });
    out.push({ bundle: validateBundle(all), p, f: -1 });
  });
  for (let k = 0; k < 30; k++)
    out.push({ bundle: syntheticWebBundle(base, i++, 40), p: -1, f: -1 });
  return out;
}

// ------------------------------------------------------------------ servers

interface Server {
  name: string;
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

const children: ChildProcess[] = [];

/** Starts `xrunhunt ...args --listen 127.0.0.1:0 --json`; resolves once it says where. */
async function start(name: string, args: string[]): Promise<Server> {
  const child = spawn(process.execPath, [BIN, ...args, '--listen', '127.0.0.1:0', '--json'], {
    env: { ...process.env, CI: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      try {
        const rec = JSON.parse(l) as { type?: string; url?: string };
        if (rec.type === 'listening' && rec.url) resolve(rec.url);
      } catch {
        // not a record
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited ${code}: ${stderr}`)));
  });
  return { name, url, child, stderr: () => stderr };
}

interface Got {
  status: number;
  headers: Record<string, string>;
  body: string;
  ms: number;
}

/** One request over a raw socket: the path goes on the wire exactly as given. */
function raw(base: string, method: string, path: string, body?: Buffer): Promise<Got> {
  const u = new URL(base);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const s = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n` +
      (body ? `Content-Length: ${body.length}\r\nContent-Type: application/json\r\n` : '') +
      '\r\n';
    s.setTimeout(15_000, () => s.destroy());
    s.on('connect', () => {
      s.write(Buffer.from(head, 'latin1'));
      if (body) s.write(body);
    });
    s.on('data', (d: Buffer) => chunks.push(d));
    const done = (): void => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [top = '', ...rest] = text.split('\r\n\r\n');
      const lines = top.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status, headers, body: rest.join('\r\n\r\n'), ms: performance.now() - t0 });
    };
    s.on('close', done);
    s.on('error', () => undefined);
  });
}

const get = (base: string, path: string): Promise<Got> => raw(base, 'GET', path);

// ------------------------------------------------------------------ 1: stored XSS

const TAGS = new Set(
  (
    'html head meta title link script body nav span a h1 h2 h3 p form input label select option ' +
    'button div dl dt dd table thead tbody tr th td figure figcaption svg g rect text line path ' +
    'circle i ol li details summary footer'
  ).split(' '),
);
const ATTRS = new Set(
  (
    'lang charset name content rel href type src defer class id method action value multiple ' +
    'selected data-filter data-page data-field data-signature data-class data-chart data-points ' +
    'data-point data-frame data-count data-release data-series data-category data-key ' +
    'data-value data-facet data-stack open xmlns viewbox width height role aria-label x y x1 x2 ' +
    'y1 y2 cx cy r d text-anchor transform title'
  ).split(' '),
);

/** What in one served page is markup no page of ours writes (each with the markers near it). */
function unsafeMarkup(html: string): string[] {
  const bad: string[] = [];
  const near = (i: number): string => {
    const m = html.slice(Math.max(0, i - 200), i + 300).match(/__pwned=(\d+)/);
    return m ? ` [variant ${m[1]}]` : '';
  };
  for (let i = html.indexOf('<'); i !== -1; i = html.indexOf('<', i + 1)) {
    const rest = html.slice(i);
    if (rest.startsWith('<!doctype html>')) continue;
    const m = /^<\/?([a-zA-Z][a-zA-Z0-9-]*)/.exec(rest);
    if (!m) {
      bad.push(`a bare "<" (${JSON.stringify(rest.slice(0, 30))})${near(i)}`);
      continue;
    }
    const tag = m[1]!.toLowerCase();
    if (!TAGS.has(tag)) {
      bad.push(`tag <${tag}>${near(i)}`);
      continue;
    }
    if (rest[1] === '/') continue;
    const end = rest.indexOf('>');
    const inside = rest.slice(m[0].length, end === -1 ? undefined : end);
    // Attributes as the element builder writes them: name or name="escaped value".
    const attr = /\s+([^\s="'>/]+)(?:="([^"]*)")?/y;
    let pos = 0;
    while (pos < inside.length) {
      attr.lastIndex = pos;
      const a = attr.exec(inside);
      if (!a) {
        bad.push(
          `<${tag}> attributes not as written: ${JSON.stringify(inside.slice(pos, pos + 40))}${near(i)}`,
        );
        break;
      }
      pos = attr.lastIndex;
      const name = a[1]!.toLowerCase();
      const value = a[2] ?? '';
      if (!ATTRS.has(name)) bad.push(`attribute ${name} on <${tag}>${near(i)}`);
      if (name === 'href' && !value.startsWith('/'))
        bad.push(`href ${JSON.stringify(value.slice(0, 40))}${near(i)}`);
      if (name === 'src' && value !== '/assets/web.js')
        bad.push(`src ${JSON.stringify(value.slice(0, 40))}${near(i)}`);
    }
    if (tag === 'script' && !/^ src="\/assets\/web\.js" defer$/.test(inside))
      bad.push(`a <script> of its own${near(i)}`);
  }
  return bad;
}

interface PageSet {
  paths: string[];
}

/** Every page kind, for every hostile signature and for each "all fields" bundle's filters. */
async function pagesOf(server: Server, hostile: Hostile[]): Promise<PageSet> {
  const paths = ['/', '/?limit=1000', '/trend', '/trend?top=7', '/flame?limit=20000'];
  for (const cls of ['kernel', 'idle', 'user', 'none', 'detector-only']) {
    paths.push(`/?limit=1000&class=${cls}`, `/flame?limit=20000&class=${cls}`);
  }
  const r = await get(server.url, '/api/ranking?limit=1000');
  const rows = (JSON.parse(r.body) as { rows: { signature: string | null }[] }).rows;
  for (const row of rows) {
    if (row.signature) paths.push(`/signature?sig=${encodeURIComponent(row.signature)}`);
  }
  for (const h of hostile.filter((x) => x.f === -1 && x.p >= 0)) {
    const b = h.bundle;
    const q = new URLSearchParams({
      kernel: b.host.kernelRelease,
      driver: b.host.cards[0]!.driver,
      card: b.host.cards[0]!.name,
    }).toString();
    const sig = b.events.find((e) => e.offender.signature)?.offender.signature ?? 'x';
    paths.push(`/?${q}`, `/trend?${q}`, `/flame?${q}`);
    paths.push(`/signature?${q}&sig=${encodeURIComponent(sig)}`);
    paths.push(`/signature?sig=${encodeURIComponent(sig)}`);
    // Reflected: a filter value that is not in the store, an unknown path, a bad value.
    paths.push(`/?kernel=${encodeURIComponent(PAYLOADS[h.p]!)}`);
    paths.push(`/signature?sig=${encodeURIComponent(`${PAYLOADS[h.p]!}-unknown`)}`);
    paths.push(`/?class=${encodeURIComponent(PAYLOADS[h.p]!)}`);
    paths.push(`/?since=${encodeURIComponent(PAYLOADS[h.p]!)}`);
    paths.push(`/nothing-${encodeURIComponent(PAYLOADS[h.p]!)}`);
  }
  return { paths };
}

async function attackXss(
  t: Tally,
  server: Server,
  hostile: Hostile[],
): Promise<{ reached: Set<number>; paths: string[] }> {
  const { paths } = await pagesOf(server, hostile);
  const failedMarkers = new Map<number, string>();
  const reached = new Set<number>();
  const pageProblems: string[] = [];
  for (const path of paths) {
    const r = await get(server.url, path);
    if (r.status >= 500 || r.status === 0) {
      pageProblems.push(`${short(path)}: status ${r.status}`);
      continue;
    }
    if (!/^text\/html/.test(r.headers['content-type'] ?? '')) continue;
    for (const m of r.body.matchAll(/__pwned=(\d+)/g)) reached.add(Number(m[1]));
    for (const b of unsafeMarkup(r.body)) {
      const v = /\[variant (\d+)\]/.exec(b);
      if (v) failedMarkers.set(Number(v[1]), `${short(path)}: ${b}`);
      else pageProblems.push(`${short(path)}: ${b}`);
    }
  }
  PAYLOADS.forEach((_, p) =>
    FIELDS.forEach((field, f) => {
      const m = marker(p, f);
      const name = `${server.name} ${field} payload ${p} (${m})`;
      record(t, refused.has(m) ? `${name}, refused at ingest` : name, failedMarkers.get(m) ?? null);
    }),
  );
  record(
    t,
    `${server.name} ${paths.length} pages: no markup of a bundle's without a variant marker`,
    pageProblems.length > 0 ? pageProblems.slice(0, 5).join('; ') : null,
  );
  return { reached, paths };
}

/** Opens pages in headless Chromium: nothing may run, no dialog, no CSP report, no error. */
async function attackBrowser(
  t: Tally,
  browser: Browser,
  server: Server,
  paths: string[],
): Promise<void> {
  for (const path of paths) {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning')
        problems.push(`console: ${short(m.text())}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${short(e.message)}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url)) problems.push(`request to ${short(r.url())}`);
    });
    try {
      await page.goto(new URL(path, server.url).href, { waitUntil: 'load', timeout: 30_000 });
      // Hover and toggle everything a payload could hang a handler on.
      // (A string: this file is compiled without the DOM's types.)
      await page.evaluate(`for (const e of document.querySelectorAll('*'))
        for (const type of ['mouseover', 'click', 'focus', 'toggle']) e.dispatchEvent(new Event(type));`);
      const pwned = await page.evaluate('window.__pwned');
      if (pwned !== undefined) problems.push(`script ran: window.__pwned = ${String(pwned)}`);
      const inline = await page.locator('script:not([src])').count();
      if (inline > 0) problems.push(`${inline} inline scripts in the DOM`);
    } catch (err) {
      problems.push(`load failed: ${short((err as Error).message)}`);
    }
    await page.close();
    // A 4xx page reports its status on the console ("Failed to load resource"): not a finding.
    const real = problems.filter((p) => !/Failed to load resource: the server responded/.test(p));
    record(t, `${server.name} chromium ${short(path)}`, real.length > 0 ? real.join('; ') : null);
  }
}

// ------------------------------------------------------------------ 2: CSP

const SEC_HEADERS: Record<string, RegExp> = {
  'x-content-type-options': /^nosniff$/,
  'x-frame-options': /^DENY$/,
  'referrer-policy': /^no-referrer$/,
};

/** What is wrong with a response's policy (null: strict enough). */
function cspProblem(headers: Record<string, string>): string | null {
  const csp = headers['content-security-policy'];
  if (!csp) return 'no Content-Security-Policy';
  const d = new Map(
    csp
      .split(';')
      .map((s) => s.trim().split(/\s+/))
      .filter((x) => x[0])
      .map(([k, ...v]) => [k!.toLowerCase(), v]),
  );
  if ((d.get('default-src') ?? []).join(' ') !== "'none'") return `default-src not 'none': ${csp}`;
  const script = d.get('script-src') ?? d.get('default-src')!;
  if (script.some((s) => !["'self'", "'none'"].includes(s)))
    return `script-src allows ${script.join(' ')}`;
  for (const k of ['style-src', 'img-src', 'connect-src', 'font-src', 'object-src']) {
    const v = d.get(k);
    if (v && v.some((s) => !["'self'", "'none'"].includes(s))) return `${k} allows ${v.join(' ')}`;
  }
  if ((d.get('base-uri') ?? []).join(' ') !== "'none'") return 'no base-uri none';
  if ((d.get('frame-ancestors') ?? []).join(' ') !== "'none'") return 'no frame-ancestors none';
  for (const [h, re] of Object.entries(SEC_HEADERS)) {
    if (!re.test(headers[h] ?? '')) return `${h}: ${headers[h] ?? 'missing'}`;
  }
  return null;
}

async function attackCsp(
  t: Tally,
  server: Server,
  isServe: boolean,
  sample: string,
): Promise<void> {
  const cases: [string, string, string, Buffer?][] = [
    ['GET', '/', 'fleet page'],
    ['GET', '/trend', 'trend page'],
    ['GET', '/flame', 'flame page'],
    ['GET', sample, 'signature page'],
    ['GET', '/signature?sig=none-such', 'signature 404 page'],
    ['GET', '/?class=bad', '400 page'],
    ['GET', '/no-such-page', '404 page'],
    ['HEAD', '/', 'HEAD of a page'],
    ['GET', '/assets/web.css', 'stylesheet'],
    ['GET', '/assets/web.js', 'script'],
    ['GET', '/assets/icon.svg', 'icon'],
    ['GET', '/assets/none.css', 'missing asset'],
    ['GET', '/api/ranking', 'API ranking'],
    ['GET', '/api/filters', 'API filters'],
    ['GET', '/api/ranking?since=x', 'API 400'],
    ['GET', '/api/nothing', 'API 404'],
    ['DELETE', '/', 'DELETE (405)'],
  ];
  if (isServe) {
    cases.push(
      ['GET', '/healthz', 'serve /healthz'],
      ['GET', '/schema', 'serve /schema'],
      ['GET', '/schema?v=999', 'serve /schema 404'],
      ['POST', '/', 'serve upload 400', Buffer.from('{"not":"a bundle"}')],
      ['POST', '/elsewhere', 'serve POST 404', Buffer.from('{}')],
      ['PUT', '/bundles', 'serve PUT 405', Buffer.from('{}')],
    );
  } else cases.push(['POST', '/', 'POST (405)', Buffer.from('x')]);
  for (const [method, path, name] of cases) {
    const body = cases.find((c) => c[2] === name)?.[3];
    const r = await raw(server.url, method, path, body);
    record(t, `${server.name} ${name}`, r.status === 0 ? 'no answer' : cspProblem(r.headers));
  }
  // What the pages need: nothing the policy forbids (inline style or script, other origins).
  for (const path of ['/', '/trend', '/flame', sample, '/?class=bad']) {
    const r = await get(server.url, path);
    const needs: string[] = [];
    if (/<style/i.test(r.body)) needs.push('an inline <style>');
    if (/\sstyle="/i.test(r.body)) needs.push('style attributes');
    if (/<script(?![^>]*\ssrc=)/i.test(r.body)) needs.push('an inline <script>');
    if (/\s(?:src|href)="(?!\/)/i.test(r.body)) needs.push('a resource from elsewhere');
    record(t, `${server.name} ${path} needs only what the policy allows`, needs.join(', ') || null);
  }
}

// ------------------------------------------------------------------ 3: traversal

const TRAVERSALS: string[] = [
  '/../../../../etc/passwd',
  '/assets/../../../etc/passwd',
  '/assets/../package.json',
  '/assets/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/assets/%2E%2E/%2E%2E/package.json',
  '/assets/.%2e/.%2e/etc/passwd',
  '/assets/%252e%252e/%252e%252e/etc/passwd',
  '/assets/%25252e%25252e/etc/passwd',
  '/assets/..%2f..%2f..%2fetc%2fpasswd',
  '/assets/..%252f..%252fetc%252fpasswd',
  '/assets/..%5c..%5c..%5cetc%5cpasswd',
  '/assets\\..\\..\\..\\etc\\passwd',
  '/\\..\\..\\package.json',
  '/assets/web.css%00.html',
  '/assets/web.css%00',
  '/assets/web.css\u0000',
  '/%00',
  '/assets/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd',
  '/assets/%e0%80%ae%e0%80%ae/etc/passwd',
  '/assets/./web.css',
  '/assets//web.css',
  '//assets/web.css',
  '/assets/web.css/.',
  '/assets/web.css/..',
  '/assets/x/../web.css',
  '/api/../api/ranking',
  '/api/%2e%2e/',
  '/./',
  '/.',
  '/..',
  '/%2e',
  '/%2e%2e',
  '/trend/../flame',
  '/assets/',
  '/assets',
  '/assets/web.css.map',
  '/assets/WEB.CSS',
  '/dist/cli/main.js',
  '/src/web/web-server.ts',
  '/package.json',
  '/.git/config',
  '/etc/passwd',
  '//etc/passwd',
  '//[',
  '//%5B',
  '/%',
  '/%zz',
  '/%u002e%u002e/etc/passwd',
  'http://evil.example/../../etc/passwd',
  '*',
  `/${'a'.repeat(2048)}`,
  `/assets/${'../'.repeat(500)}etc/passwd`,
  `/${'%2e%2e/'.repeat(1000)}etc/passwd`,
  `/${'a/'.repeat(7000)}`,
  `/${'a'.repeat(100_000)}`,
];

/** Text from outside the assets that must never come back. */
const OUTSIDE = [
  /root:.*:0:0:/,
  /"name": "xrunhunt"/,
  /SQLite format 3/,
  /export (async )?function/,
  /\[core\]/,
];

async function attackTraversal(t: Tally, server: Server): Promise<void> {
  // Absolute-form targets (RFC 9112: a server must accept them) are judged by their path.
  for (const [path, ok] of [
    ['http://evil.example/assets/web.css', 200],
    ['HTTP://evil.example/', 200],
  ] as const) {
    const r = await raw(server.url, 'GET', path);
    record(
      t,
      `${server.name} ${JSON.stringify(path)}`,
      r.status === ok ? null : `status ${r.status}`,
    );
  }
  for (const path of TRAVERSALS) {
    const r = await raw(server.url, 'GET', path);
    const leak = OUTSIDE.find((re) => re.test(r.body));
    record(
      t,
      `${server.name} ${JSON.stringify(path.length > 80 ? `${path.slice(0, 60)}… (${path.length} chars)` : path)}`,
      r.status === 0
        ? 'no answer (connection dropped)'
        : leak
          ? `served ${leak} (status ${r.status})`
          : r.status < 400 || r.status >= 500
            ? `status ${r.status}`
            : null,
    );
  }
}

// ------------------------------------------------------------------ 4: injection, huge values

const TEXT_VALUES: string[] = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "x'); DROP TABLE bundles; --",
  '" OR ""="',
  "') UNION SELECT sqlite_version(), 1, 1 --",
  "' UNION SELECT version() --",
  "'||(SELECT pg_sleep(10))||'",
  "'; SELECT pg_sleep(10); --",
  "1' AND randomblob(1000000000) --",
  '@k0',
  '$1',
  ':k0',
  '?',
  '\\',
  "\\'",
  '%',
  '_',
  '*',
  '\u0000',
  'a\u0000b',
  '\u001b[2J',
  '\r\nSet-Cookie: x=1',
  '\uffff',
  '\ud800',
  '\u202e',
  'null',
  'NaN',
  '😀'.repeat(50),
  'x'.repeat(300),
  'x'.repeat(301),
  'x'.repeat(4000),
];

const LIST_PARAMS = ['kernel', 'preempt', 'driver', 'card', 'backend', 'class', 'breakdown'];
const ENUM_PARAMS = new Set(['class', 'breakdown']);
const TIME_VALUES = [
  "2026-03-01' OR 1=1 --",
  '99999-01-01',
  '+275760-09-13',
  '275760-09-13',
  '2026-13-45',
  '2026-02-30',
  '0000-00-00',
  '0000-01-01',
  '2026-03-01T25:00:00Z',
  '2026-03-01T00:00:00+99:99',
  '2026-03-01T00:00:00.0000000000001Z',
  '9999-12-31T23:59:59.999Z',
  '1e10',
  '-1',
  '\u0000',
  '2026-03-01\u0000',
  'x'.repeat(4000),
];
const COUNT_VALUES = [
  '-1',
  '0',
  '1e3',
  '1.5',
  '0x10',
  '99999999999999999999999',
  ' 1',
  '1 ',
  '+1',
  '\uff11',
  'Infinity',
  'NaN',
  '1; DROP TABLE bundles',
  '1\u0000',
  '9'.repeat(4000),
];
const COUNT_PARAMS = [
  ['/', 'limit'],
  ['/signature', 'stacks'],
  ['/trend', 'top'],
  ['/flame', 'limit'],
] as const;

// Database and runtime error text (not words the probes themselves carry, which pages echo).
const SQL_LEAK =
  /SQLITE_|SqliteError|syntax error at|: syntax error|does not exist|invalid byte sequence|unterminated quoted|no such (table|column|function)|bind message|could not determine data type|DatabaseError|Internal error|at .*\.js:\d+/;

interface Probe {
  name: string;
  path: string;
  /** Statuses this probe may answer; a 200 page must also count no bundle when `none`. */
  ok: number[];
  none?: boolean;
}

/** encodeURIComponent, except that a lone surrogate goes out as its (invalid) UTF-8 bytes. */
const enc = (v: string): string =>
  v
    .split(/([\ud800-\udfff])/)
    .map((part) =>
      /^[\ud800-\udfff]$/.test(part)
        ? [
            0xe0 | (part.charCodeAt(0) >> 12),
            0x80 | ((part.charCodeAt(0) >> 6) & 63),
            0x80 | (part.charCodeAt(0) & 63),
          ]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('')
        : encodeURIComponent(part),
    )
    .join('');

function probes(sampleSig: string): Probe[] {
  const out: Probe[] = [];
  const sig = `sig=${enc(sampleSig)}`;
  for (const name of LIST_PARAMS) {
    for (const v of TEXT_VALUES) {
      const q = `${name}=${enc(v)}`;
      const ok = ENUM_PARAMS.has(name) ? [400] : [200, 400];
      out.push({
        name: `${name}=${JSON.stringify(v.slice(0, 40))}`,
        path: `/?${q}`,
        ok,
        none: true,
      });
      out.push({
        name: `api ${name}=${JSON.stringify(v.slice(0, 40))}`,
        path: `/api/ranking?${q}`,
        ok,
        none: true,
      });
      out.push({
        name: `signature ${name}=${JSON.stringify(v.slice(0, 40))}`,
        path: `/signature?${sig}&${q}`,
        ok: [...ok, 404],
      });
    }
    const many = Array.from({ length: 51 }, (_, i) => `${name}=v${i}`).join('&');
    out.push({ name: `${name} ×51 values`, path: `/?${many}`, ok: [400] });
    const fifty = Array.from({ length: 50 }, (_, i) => `${name}=%27%20OR%201%3D1--${i}`).join('&');
    out.push({
      name: `${name} ×50 injections`,
      path: `/trend?${fifty}`,
      ok: ENUM_PARAMS.has(name) ? [400] : [200],
    });
    const same = Array.from({ length: 1500 }, () => `${name}=a`).join('&');
    out.push({
      name: `${name} ×1500 same value`,
      path: `/flame?${same}`,
      ok: ENUM_PARAMS.has(name) ? [400, 431] : [200, 431],
    });
  }
  for (const name of ['since', 'until']) {
    for (const v of TIME_VALUES) {
      const q = `${name}=${enc(v)}`;
      out.push({
        name: `${name}=${JSON.stringify(v.slice(0, 40))}`,
        path: `/?${q}`,
        ok: [200, 400],
      });
      out.push({
        name: `api trend ${name}=${JSON.stringify(v.slice(0, 40))}`,
        path: `/api/trend?${q}`,
        ok: [200, 400],
      });
    }
  }
  out.push({
    name: 'since after until',
    path: '/?since=2030-01-01&until=2000-01-01',
    ok: [200, 400],
    none: true,
  });
  for (const [page, name] of COUNT_PARAMS) {
    for (const v of COUNT_VALUES) {
      const q = `${name}=${enc(v)}`;
      const extra = page === '/signature' ? `${sig}&` : '';
      const ok = name === 'top' && v === '0' ? [200] : [400]; // top=0: the fleet line alone
      out.push({
        name: `${page} ${name}=${JSON.stringify(v.slice(0, 40))}`,
        path: `${page}?${extra}${q}`,
        ok,
      });
    }
  }
  for (const v of [...TEXT_VALUES, 'x'.repeat(12_000)]) {
    const q = `sig=${enc(v)}`;
    out.push({
      name: `sig=${JSON.stringify(v.slice(0, 40))}`,
      path: `/signature?${q}`,
      ok: [400, 404],
    });
    out.push({
      name: `api sig=${JSON.stringify(v.slice(0, 40))}`,
      path: `/api/signature?${q}`,
      ok: [400, 404],
    });
    out.push({
      name: `flame sig=${JSON.stringify(v.slice(0, 40))}`,
      path: `/flame?${q}`,
      ok: [200, 400],
    });
  }
  out.push({ name: 'sig twice', path: `/signature?${sig}&sig=x`, ok: [200, 400, 404] });
  out.push({
    name: 'query of 1500 unknown names',
    path: `/?${Array.from({ length: 1500 }, (_, i) => `z${i}=1`).join('&')}`,
    ok: [200, 400],
  });
  out.push({
    name: 'query past the header limit',
    path: `/?kernel=${'k'.repeat(70_000)}`,
    ok: [400, 414, 431],
  });
  out.push({
    name: 'malformed percent',
    path: '/?kernel=%E0%A4%A&card=%&driver=%zz',
    ok: [200, 400],
    none: true,
  });
  return out;
}

async function attackInjection(
  t: Tally,
  server: Server,
  sampleSig: string,
  bundles: number,
): Promise<void> {
  for (const p of probes(sampleSig)) {
    const r = await get(server.url, p.path);
    let problem: string | null = null;
    if (r.status === 0) problem = 'no answer';
    else if (!p.ok.includes(r.status))
      problem = `status ${r.status} (expected ${p.ok.join('/')}): ${short(r.body.replace(/<[^>]*>/g, ' ')).slice(0, 120)}`;
    else if (SQL_LEAK.test(r.body.replace(/__pwned=\d+/g, '')))
      problem = `error text leaked: ${short(SQL_LEAK.exec(r.body)![0])}`;
    else if (r.ms > 5000) problem = `took ${Math.round(r.ms)} ms`;
    else if (p.none && r.status === 200) {
      const n = p.path.startsWith('/api/')
        ? (JSON.parse(r.body) as { totals: { bundles: number } }).totals.bundles
        : Number(/data-field="bundles">(\d+)</.exec(r.body)?.[1] ?? NaN);
      if (n !== 0) problem = `matched ${n} bundles`;
    }
    record(t, `${server.name} ${p.name}`, problem);
  }
  const after = await get(server.url, '/api/ranking');
  const n =
    after.status === 200
      ? (JSON.parse(after.body) as { totals: { bundles: number } }).totals.bundles
      : -1;
  record(
    t,
    `${server.name} the store intact afterwards`,
    n === bundles ? null : `holds ${n} of ${bundles} bundles`,
  );
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  if (!existsSync(BIN)) throw new Error('run "npm run build" first');
  const xss = tally('30.web stored XSS (served HTML)');
  const chrome = tally('30.web stored XSS (headless Chromium)');
  const csp = tally('30.web CSP on every answer');
  const trav = tally('30.web path traversal in URLs');
  const inj = tally('30.web SQL injection, huge query values');
  const hostile = hostileBundles();
  const inbox = join(work, 'bundles');
  mkdirSync(inbox);
  hostile.forEach((h, i) =>
    writeFileSync(join(inbox, `b${i}.json.gz`), gzipSync(JSON.stringify(h.bundle))),
  );
  const db = join(work, 'fleet.db');
  const agg = await runProgram(process.execPath, [BIN, 'aggregate', inbox, '--db', db], {
    env: { CI: 'true' },
    timeoutMs: 300_000,
  });
  if (agg.code !== 0) throw new Error(`aggregate failed: ${agg.stderr}`);
  const servers: [Server, boolean][] = [[await start('sqlite web', ['web', '--db', db]), false]];
  let pgServer: TestPostgres | null = null;
  let browser: Browser | null = null;
  try {
    if (withPg) {
      pgServer = await startTestPostgres();
      const url = pgServer.createDatabase();
      const pgInbox = join(work, 'pg-inbox');
      const serve = await start('pg serve --web', [
        'serve',
        '--inbox',
        pgInbox,
        '--store',
        url,
        '--web',
        '--rate-limit',
        '100000/1m',
      ]);
      for (const h of hostile) {
        const r = await raw(serve.url, 'POST', '/', Buffer.from(JSON.stringify(h.bundle)));
        if (r.status !== 201) throw new Error(`upload to serve: ${r.status} ${short(r.body)}`);
      }
      servers.push([serve, true]);
    } else console.error(`PostgreSQL classes skipped: ${postgresSkip() || '--no-pg'}`);
    if (existsSync(CHROMIUM)) {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
    } else console.error(`${CHROMIUM} missing: the Chromium class is skipped`);
    const reachedAll = new Set<number>();
    for (const [server, isServe] of servers) {
      const { reached, paths } = await attackXss(xss, server, hostile);
      for (const m of reached) reachedAll.add(m);
      const sample = paths.find((p) => p.startsWith('/signature?sig=')) ?? '/signature?sig=x';
      if (browser) {
        const kinds = paths.filter(
          (p, i) => i < 5 || (/[?&]kernel=/.test(p) && !/unknown|class=|since=/.test(p)),
        );
        await attackBrowser(chrome, browser, server, kinds);
      }
      await attackCsp(csp, server, isServe, sample);
      await attackTraversal(trav, server);
      const sig = decodeURIComponent(sample.slice('/signature?sig='.length));
      await attackInjection(inj, server, sig, hostile.length);
      if (/at .*\.js:\d+/.test(server.stderr()))
        console.error(`${server.name} logged a stack:\n${server.stderr().slice(0, 2000)}`);
    }
    if (list) {
      const fields = FIELDS.filter((_, f) => PAYLOADS.some((_, p) => reachedAll.has(marker(p, f))));
      console.log(`bundle fields that reach a page: ${fields.join(', ')}`);
    }
  } finally {
    await browser?.close();
    for (const c of children) c.kill('SIGTERM');
    pgServer?.destroy();
    rmSync(work, { recursive: true, force: true });
  }
  printTallies(tallies.all, list);
}

await main();
