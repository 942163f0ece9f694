// `xrunhunt serve` + `xrunhunt submit` end to end over real loopback HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, request } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import { cliCommand, repoRoot, runCli } from '../helpers/cli.js';
import { readBundle } from '../../src/bundle/read.js';
import { syntheticBundle } from '../../src/bundle/synthetic-fleet.js';
import { validateBundle } from '../../src/bundle/validate.js';

const FIX = join(repoRoot, 'test/fixtures/bundles');
const TOKEN = 'k3y-for-tests-0123456789abcdef';

interface Server {
  url: string;
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

async function startServe(args: string[]): Promise<Server> {
  const [cmd, ...pre] = cliCommand();
  const child = spawn(cmd!, [...pre, 'serve', '--listen', '127.0.0.1:0', '--json', ...args], {
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
  const lines: Record<string, unknown>[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const rec = JSON.parse(l) as Record<string, unknown>;
      lines.push(rec);
      if (rec['type'] === 'listening') resolve(rec['url'] as string);
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    lines,
    exited,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** One raw HTTP request (no fetch niceties: exact headers, chunked bodies when asked). */
function http(
  url: string,
  method: string,
  body?: Buffer,
  headers: Record<string, string> = {},
  chunked = false,
  localAddress?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers: {
          ...(body && !chunked ? { 'content-length': String(body.length) } : {}),
          ...headers,
        },
        agent: false,
        ...(localAddress ? { localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed: Record<string, unknown>;
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            parsed = { raw: text };
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    if (body && chunked) {
      // Send in pieces without a length: the server must count and cut off.
      for (let i = 0; i < body.length; i += 65536) req.write(body.subarray(i, i + 65536));
      req.end();
    } else req.end(body);
  });
}

test('serve: every bad request gets its HTTP error; good bundles land atomically under their hash; submit works', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  const inbox = join(dir, 'inbox');
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const srv = await startServe([
    '--inbox',
    inbox,
    '--token',
    join(dir, 'token'),
    '--max-size',
    '64K',
    '--rate-limit',
    '1000/1m',
  ]);
  try {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const gz = readFileSync(join(FIX, 'session-lab-test-lockup.json.gz'));
    const json = readFileSync(join(FIX, 'session-ext4-writeback.json'));

    assert.equal((await http(`${srv.url}healthz`, 'GET')).status, 200);
    const get = await http(srv.url, 'GET');
    assert.equal(get.status, 405);
    assert.equal(get.headers['allow'], 'POST');
    assert.equal((await http(`${srv.url}../../etc/passwd`, 'POST', json, auth)).status, 404);

    const noToken = await http(srv.url, 'POST', json);
    assert.equal(noToken.status, 401);
    assert.match(String(noToken.body['error']), /needs a token/);
    assert.match(String(noToken.headers['www-authenticate']), /Bearer/);
    assert.equal(
      (await http(srv.url, 'POST', json, { authorization: 'Bearer wrong-token-wrong-token' }))
        .status,
      401,
    );
    assert.equal(
      (await http(srv.url, 'POST', json, { authorization: `Basic ${TOKEN}` })).status,
      401,
    );

    const accepted = await http(srv.url, 'POST', gz, auth);
    assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
    const id = accepted.body['id'] as string;
    assert.match(id, /^[0-9a-f]{64}$/);
    const again = await http(`${srv.url}bundles`, 'POST', gz, auth);
    assert.deepEqual([again.status, again.body], [200, { status: 'duplicate', id }]);
    // The same bundle as plain JSON is the same bundle.
    const plain = gzipSync(JSON.stringify(JSON.parse(json.toString())));
    const one = await http(srv.url, 'POST', json, auth);
    const two = await http(srv.url, 'POST', plain, auth);
    assert.deepEqual([one.status, two.status], [201, 200]);

    const bad: [Buffer, RegExp][] = [
      [Buffer.from('{"formatVersion": 1'), /not valid JSON/],
      [
        Buffer.from(json.toString().replace('"rateHz": 48000', '"rateHz": "fast"')),
        /params\.rateHz: expected a number, found "fast"/,
      ],
      [readFileSync(join(FIX, 'future-version-7.json')), /newer xrunhunt \(formatVersion 7\)/],
      [gz.subarray(0, gz.length - 30), /truncated/],
      [Buffer.alloc(0), /empty body/],
    ];
    for (const [body, re] of bad) {
      const r = await http(srv.url, 'POST', body, auth);
      assert.equal(r.status, 400, String(re));
      assert.match(String(r.body['error']), re);
    }
    const big = Buffer.alloc(100 * 1024, 0x20);
    const declared = await http(srv.url, 'POST', big, auth);
    assert.equal(declared.status, 413);
    assert.match(
      String(declared.body['error']),
      /102400 bytes is larger than this server's limit of 65536 bytes/,
    );
    const streamed = await http(srv.url, 'POST', big, auth, true).catch((e: Error): Answer => ({
      status: -1,
      headers: {},
      body: { error: e.message },
    }));
    assert.ok(
      streamed.status === 413 || streamed.status === -1,
      `streamed oversize: ${streamed.status}`,
    );

    // submit: checks locally, sends, prints the answer; exit 1 on refusal.
    const s1 = await runCli([
      'submit',
      srv.url,
      join(FIX, 'session-v0-draft.json'),
      '--token',
      join(dir, 'token'),
    ]);
    assert.equal(s1.code, 0, s1.stderr);
    assert.match(s1.stdout, /^accepted: [0-9a-f]{64}\n$/);
    const s2 = await runCli(['submit', srv.url, join(FIX, 'session-v0-draft.json')]);
    assert.equal(s2.code, 1);
    assert.match(s2.stderr, /refused the bundle \(HTTP 401\)/);
    const s3 = await runCli([
      'submit',
      srv.url,
      join(FIX, 'future-version-7.json'),
      '--token',
      join(dir, 'token'),
    ]);
    assert.equal(s3.code, 1);
    assert.match(s3.stderr, /newer xrunhunt/);
    const closed = await new Promise<number>((res) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const port = (probe.address() as AddressInfo).port;
        probe.close(() => res(port));
      });
    });
    const s4 = await runCli([
      'submit',
      `http://127.0.0.1:${closed}/`,
      join(FIX, 'session-v0-draft.json'),
    ]);
    assert.equal(s4.code, 1);
    assert.match(s4.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);

    // The inbox holds exactly the accepted bundles, named by hash, all readable; no temp files.
    const files = readdirSync(inbox).sort();
    assert.equal(files.length, 3, files.join(' '));
    for (const f of files) {
      assert.match(f, /^[0-9a-f]{64}\.json(\.gz)?$/);
      await readBundle(join(inbox, f));
    }
    assert.ok(files.includes(`${id}.json.gz`));
    assert.equal(await srv.stop(), 0);
    const stopped = srv.lines.at(-1)!;
    assert.deepEqual(stopped, {
      type: 'stopped',
      accepted: 3,
      duplicate: 2,
      rejected: 11, // 3 × 401, 5 × 400, 2 × 413, 1 × 401 (submit without token)
      aborted: 0,
      failed: 0,
    });
  } finally {
    srv.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve: per-client rate limit answers 429 with Retry-After; a bad token file or listen address is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  const srv = await startServe([
    '--inbox',
    join(dir, 'inbox'),
    '--rate-limit',
    '3/1m',
    '--duration',
    '60s',
  ]);
  try {
    const json = readFileSync(join(FIX, 'session-ext4-writeback.json'));
    const codes: number[] = [];
    let last: Answer | undefined;
    for (let i = 0; i < 5; i++) {
      last = await http(srv.url, 'POST', json);
      codes.push(last.status);
    }
    assert.deepEqual(codes, [201, 200, 200, 429, 429]);
    assert.ok(Number(last!.headers['retry-after']) >= 1);
    assert.match(String(last!.body['error']), /too many uploads from 127\.0\.0\.1/);
  } finally {
    await srv.stop();
  }
  writeFileSync(join(dir, 'short'), 'abc\n');
  const r1 = await runCli(['serve', '--inbox', join(dir, 'i2'), '--token', join(dir, 'short')]);
  assert.equal(r1.code, 1);
  assert.match(r1.stderr, /must be one line of at least 16 characters/);
  const r2 = await runCli(['serve', '--inbox', join(dir, 'i2'), '--listen', 'localhost:99999']);
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /invalid --listen "localhost:99999"/);
  const dev = await runCli([
    'submit',
    'http://127.0.0.1:9/',
    join(FIX, 'session-v0-draft.json'),
    '--token',
    '/dev/zero',
  ]);
  assert.equal(dev.code, 1);
  assert.match(dev.stderr, /expected a token file \(a regular file\), found a character device/);
  const big = await runCli(['serve', '--inbox', join(dir, 'i2'), '--max-size', '100M']);
  assert.equal(big.code, 1);
  assert.match(big.stderr, /--max-size 100M is larger than the 64M of upload bodies/);
  const r3 = await runCli(['serve']);
  assert.equal(r3.code, 1);
  assert.match(r3.stderr, /serve needs --inbox DIR/);
  rmSync(dir, { recursive: true, force: true });
});

test('serve: 1,000 concurrent small uploads from 250 loopback addresses are all answered and stored, with bounded work in flight', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  const inbox = join(dir, 'inbox');
  const base = validateBundle(
    JSON.parse(readFileSync(join(FIX, 'session-ext4-writeback.json'), 'utf8')),
  );
  const bodies = Array.from({ length: 1000 }, (_, i) =>
    gzipSync(JSON.stringify(syntheticBundle(base, i, 400))),
  );
  const srv = await startServe([
    '--inbox',
    inbox,
    '--rate-limit',
    '100000/1m',
    '--duration',
    '120s',
  ]);
  try {
    const t0 = Date.now();
    // Watch the server's own counters while the flood is on: work in flight stays bounded.
    let flooding = true;
    let maxInFlight = 0;
    let samples = 0;
    const poll = (async () => {
      while (flooding) {
        const h = await http(`${srv.url}healthz`, 'GET').catch(() => null);
        if (h?.status === 200) {
          samples++;
          maxInFlight = Math.max(maxInFlight, h.body['inFlight'] as number);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // 4 uploads per client address (the per-client limit is 8): 127.0.0.1 … 127.0.0.250.
    const from = (i: number): string => `127.0.0.${1 + (i % 250)}`;
    const answers = await Promise.all(
      bodies.map((b, i) =>
        http(srv.url, 'POST', b, {}, false, from(i)).catch((e: Error) => ({
          status: -1,
          headers: {},
          body: { error: e.message },
        })),
      ),
    );
    const elapsed = Date.now() - t0;
    flooding = false;
    await poll;
    assert.ok(samples > 0, 'health checks answered during the flood');
    assert.ok(maxInFlight <= 32, `at most 32 bodies in flight (saw ${maxInFlight})`);
    const by = new Map<number, number>();
    for (const a of answers) by.set(a.status, (by.get(a.status) ?? 0) + 1);
    const statuses = [...by.keys()].sort();
    assert.ok(
      statuses.every((s) => s === 201 || s === 503),
      `only accepted or busy: ${JSON.stringify([...by])}`,
    );
    // Retry the busy ones (what a client does on 503 + Retry-After) until all are in.
    let retry = bodies.filter((_, i) => answers[i]!.status === 503);
    let busy = retry.length;
    for (let round = 0; retry.length > 0 && round < 20; round++) {
      const again = await Promise.all(
        retry.map((b, i) => http(srv.url, 'POST', b, {}, false, from(i))),
      );
      retry = retry.filter((_, i) => again[i]!.status === 503);
      busy += retry.length;
    }
    assert.equal(retry.length, 0);
    const files = readdirSync(inbox);
    assert.equal(files.length, 1000, 'one file per distinct bundle, none partial');
    assert.ok(files.every((f) => /^[0-9a-f]{64}\.json\.gz$/.test(f)));
    assert.equal(await srv.stop(), 0);
    assert.deepEqual(srv.lines.at(-1), {
      type: 'stopped',
      accepted: 1000,
      duplicate: 0,
      rejected: busy,
      aborted: 0,
      failed: 0,
    });
    process.stderr.write(
      `# 1000 concurrent uploads answered in ${elapsed} ms; ${by.get(503) ?? 0} first answered 503 busy; max ${maxInFlight} in flight over ${samples} samples\n`,
    );
  } finally {
    srv.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve --duration stops by itself and reports what it did', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  try {
    const r = await runCli(
      [
        'serve',
        '--inbox',
        join(dir, 'inbox'),
        '--listen',
        '127.0.0.1:0',
        '--duration',
        '1s',
        '--json',
      ],
      {
        timeoutMs: 60_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines[0]!['type'], 'listening');
    assert.deepEqual(lines.at(-1), {
      type: 'stopped',
      accepted: 0,
      duplicate: 0,
      rejected: 0,
      aborted: 0,
      failed: 0,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('submit against a hostile collector: endless reply, gzip bomb, redirect loop, escape sequences, redirects', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-submit-'));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const bundle = join(FIX, 'session-v0-draft.json');
  const sent = readFileSync(bundle);
  const ID = 'b'.repeat(64);
  let endlessBytes = 0;
  const seen: { path: string; auth: string | undefined; bytes: number }[] = [];
  // A second origin (another port) that records whether the token reached it.
  const other = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        path: 'other',
        auth: req.headers['authorization'],
        bytes: Buffer.concat(chunks).length,
      });
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'wrong token' }));
    });
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  const hostile = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      seen.push({ path, auth: req.headers['authorization'], bytes: Buffer.concat(chunks).length });
      if (path === '/endless') {
        res.writeHead(201, { 'content-type': 'application/json' });
        const block = Buffer.alloc(64 * 1024, 0x41);
        const pump = (): void => {
          // Stops by itself: at 1 GiB, or when the client hangs up.
          while (!res.destroyed && endlessBytes < 1 << 30) {
            endlessBytes += block.length;
            if (!res.write(block)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      } else if (path === '/bomb') {
        res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20)));
      } else if (path === '/loop') {
        res.writeHead(307, { location: '/loop' });
        res.end();
      } else if (path === '/escape') {
        res.writeHead(400, { 'content-type': 'application/json', 'retry-after': '1\u009b2J' });
        res.end(
          JSON.stringify({
            error: '\u001b[2J\u001b]0;pwned\u0007\r\nxrunhunt: accepted: fake\u009b31m',
          }),
        );
      } else if (path === '/moved') {
        res.writeHead(307, { location: '/final' });
        res.end();
      } else if (path === '/final') {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'accepted', id: ID }));
      } else if (path === '/away') {
        res.writeHead(308, { location: `${otherUrl}/` });
        res.end();
      } else if (path === '/see-other') {
        res.writeHead(303, { location: '/final' });
        res.end();
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  const submit = (path: string, ...more: string[]) =>
    runCli(['submit', `${base}${path}`, bundle, '--token', join(dir, 'token'), ...more], {
      timeoutMs: 90_000,
    });
  const noControl = (text: string): void =>
    assert.doesNotMatch(
      text.replace(/\n/g, ''),
      // eslint-disable-next-line no-control-regex
      /[\u0000-\u001f\u007f-\u009f]/,
      JSON.stringify(text),
    );
  try {
    const endless = await submit('/endless');
    assert.equal(endless.code, 1, endless.stderr);
    assert.match(endless.stderr, /answered HTTP 201 but the reply is longer than 65536 bytes/);
    assert.doesNotMatch(endless.stderr, /at .*\.ts:\d+/, 'no stack trace');
    // The socket buffers hold a few MB at most; the old client read until 1 GiB.
    assert.ok(endlessBytes < 256 * 1024 * 1024, `the collector could send ${endlessBytes} bytes`);

    const bomb = await submit('/bomb');
    assert.equal(bomb.code, 1, bomb.stderr);
    assert.match(
      bomb.stderr,
      /HTTP 400\): the gzip-encoded reply decompresses to more than 65536 bytes/,
    );

    const loop = await submit('/loop');
    assert.equal(loop.code, 1);
    assert.match(loop.stderr, /not sent: more than 3 redirects/);
    assert.equal(seen.filter((s) => s.path === '/loop').length, 4, 'first try + 3 redirects');
    assert.doesNotMatch(loop.stderr, /detached ArrayBuffer|at .*\.ts:\d+/);

    const escape = await submit('/escape');
    assert.equal(escape.code, 1);
    assert.equal(escape.stdout, '');
    noControl(escape.stderr);
    assert.equal(escape.stderr.trim().split('\n').length, 1, escape.stderr);
    assert.doesNotMatch(escape.stderr, /^xrunhunt: accepted/m);
    assert.match(
      escape.stderr,
      /\\x1b\[2J\\x1b\]0;pwned\\x07\\r\\nxrunhunt: accepted: fake\\x9b31m/,
    );
    const escapeJson = await submit('/escape', '--json');
    noControl(escapeJson.stdout);
    assert.equal((JSON.parse(escapeJson.stdout) as { status: number }).status, 400);

    // A 307 re-sends the whole body (this failed with "detached ArrayBuffer" before).
    const moved = await submit('/moved');
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout, `accepted: ${ID}\n`);
    const final = seen.filter((s) => s.path === '/final').at(-1)!;
    assert.deepEqual([final.bytes, final.auth], [sent.length, `Bearer ${TOKEN}`]);

    const away = await submit('/away');
    assert.equal(away.code, 1);
    assert.match(away.stderr, /HTTP 401\) \(answered by http:\/\/127\.0\.0\.1:\d+\): wrong token/);
    assert.match(away.stderr, /the token was not sent/);
    const atOther = seen.filter((s) => s.path === 'other');
    assert.deepEqual(atOther, [{ path: 'other', auth: undefined, bytes: sent.length }]);

    const seeOther = await submit('/see-other');
    assert.equal(seeOther.code, 1);
    assert.match(seeOther.stderr, /would turn the upload into a GET/);

    const fifo = await runCli(['submit', `${base}/final`, '/dev/zero']);
    assert.equal(fifo.code, 1);
    assert.match(fifo.stderr, /expected a bundle \(a regular file\), found a character device/);
  } finally {
    hostile.closeAllConnections();
    other.closeAllConnections();
    await new Promise((r) => hostile.close(r));
    await new Promise((r) => other.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Waits (at most `ms`) until the server logged a record that `match` accepts. */
async function logged(
  srv: Server,
  match: (r: Record<string, unknown>) => boolean,
  ms = 20_000,
): Promise<Record<string, unknown>> {
  for (const t0 = Date.now(); Date.now() - t0 < ms;) {
    const hit = srv.lines.find(match);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no such log record within ${ms} ms: ${JSON.stringify(srv.lines.slice(-5))}`);
}

/** POST with a client-side deadline: a request not answered within `ms` counts as failed. */
function postWithin(
  url: string,
  body: Buffer,
  headers: Record<string, string>,
  ms: number,
  localAddress?: string,
): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-length': String(body.length), ...headers },
      agent: false,
      signal: AbortSignal.timeout(ms),
      ...(localAddress ? { localAddress } : {}),
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(-1));
    });
    req.on('error', () => resolve(-1));
    req.end(body);
  });
}

test('serve: a slow-body attack with the token does not keep valid uploads out', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  const srv = await startServe([
    '--inbox',
    join(dir, 'inbox'),
    '--token',
    join(dir, 'token'),
    '--rate-limit',
    '100000/1m',
  ]);
  const { port } = new URL(srv.url);
  const base = validateBundle(
    JSON.parse(readFileSync(join(FIX, 'session-ext4-writeback.json'), 'utf8')),
  );
  const ATTACK_MS = 9_000;
  const attackEnd = Date.now() + ATTACK_MS;
  const sockets = new Set<Socket>();
  const lifetimes: number[] = [];
  let answered408 = 0;
  // 40 authenticated slow uploads (5 addresses × 8, the per-client limit, one of them the
  // valid client's own 127.0.0.1 as for local users on the loopback default), each
  // declaring 1,000,000 bytes and sending one byte every 2 s, reconnecting when cut.
  const attacker = async (localAddress: string): Promise<void> => {
    while (Date.now() < attackEnd) {
      await new Promise<void>((done) => {
        const t0 = Date.now();
        const s = connect({ host: '127.0.0.1', port: Number(port), localAddress });
        sockets.add(s);
        let drip: NodeJS.Timeout | undefined;
        s.on('connect', () => {
          s.write(
            `POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 1000000\r\n\r\n`,
          );
          drip = setInterval(() => s.write('{'), 2000);
        });
        s.on('data', (d: Buffer) => {
          if (d.toString().startsWith('HTTP/1.1 408')) answered408++;
        });
        s.on('error', () => undefined);
        s.on('close', () => {
          clearInterval(drip);
          sockets.delete(s);
          lifetimes.push(Date.now() - t0);
          done();
        });
      });
    }
  };
  try {
    const attack = Promise.all(
      Array.from({ length: 40 }, (_, i) => attacker(`127.0.0.${1 + (i % 5)}`)),
    );
    const stopAttack = setTimeout(() => {
      for (const s of sockets) s.destroy();
    }, ATTACK_MS);
    await new Promise((r) => setTimeout(r, 500)); // let the attack take hold first
    const statuses: number[] = [];
    for (let i = 0; Date.now() < attackEnd - 500; i++) {
      const body = gzipSync(JSON.stringify(syntheticBundle(base, i, 50)));
      statuses.push(
        await postWithin(srv.url, body, { authorization: `Bearer ${TOKEN}` }, 5_000, '127.0.0.1'),
      );
      await new Promise((r) => setTimeout(r, 150));
    }
    await attack;
    clearTimeout(stopAttack);
    const ok = statuses.filter((s) => s === 201).length;
    process.stderr.write(
      `# slow-body attack: ${ok}/${statuses.length} valid uploads accepted; ${lifetimes.length} attack connections, longest ${Math.max(...lifetimes)} ms, ${answered408} answered 408\n`,
    );
    assert.ok(statuses.length >= 10, `only ${statuses.length} valid uploads were tried`);
    assert.deepEqual(
      statuses.filter((s) => s !== 201),
      [],
      'every valid upload accepted during the attack',
    );
    // Cut by the body deadline (3 s grace, then 4 KiB/s): well before the old 30 s.
    assert.ok(answered408 > 0, 'slow bodies are answered 408');
    const cut = lifetimes.filter((t) => t < ATTACK_MS - 1000);
    assert.ok(cut.length > 0 && Math.max(...cut) < 8_000, `cut after ${Math.max(...cut)} ms`);
  } finally {
    for (const s of sockets) s.destroy();
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve: uploads that each expand to 30 MB are admitted within the decompressed-bytes budget', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  const srv = await startServe(['--inbox', join(dir, 'inbox'), '--rate-limit', '100000/1m']);
  const base = validateBundle(
    JSON.parse(readFileSync(join(FIX, 'session-ext4-writeback.json'), 'utf8')),
  );
  const EXPANDED = 30_000_000;
  const BUDGET = 64 * 1024 * 1024;
  // Valid JSON: a bundle followed by whitespace, ~30 KB gzipped, 30 MB inflated.
  const bodies = Array.from({ length: 12 }, (_, i) => {
    const text = JSON.stringify(syntheticBundle(base, i, 50));
    return gzipSync(text + ' '.repeat(EXPANDED - text.length));
  });
  try {
    let polling = true;
    let peakDecoded = 0;
    let peakWaiting = 0;
    const poll = (async () => {
      while (polling) {
        const h = await http(`${srv.url}healthz`, 'GET').catch(() => null);
        if (h?.status === 200) {
          peakDecoded = Math.max(peakDecoded, Number(h.body['decodedBytes']));
          peakWaiting = Math.max(peakWaiting, Number(h.body['waiting']));
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const statuses = await Promise.all(
      bodies.map((b, i) => postWithin(srv.url, b, {}, 60_000, `127.0.0.${1 + (i % 4)}`)),
    );
    polling = false;
    await poll;
    const rss = readFileSync(`/proc/${srv.child.pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/);
    process.stderr.write(
      `# ${bodies.length} × 30 MB expanding uploads: peak ${peakDecoded} decoded bytes reserved, peak ${peakWaiting} waiting, serve peak RSS ${rss ? Math.round(Number(rss[1]) / 1024) : '?'} MB\n`,
    );
    // Accepted, or (on a very slow machine, after the 15 s admission wait) refused as busy.
    assert.ok(
      statuses.every((st) => st === 201 || st === 503),
      `statuses: ${statuses.join(' ')}`,
    );
    assert.ok(statuses.filter((st) => st === 201).length >= 2, `statuses: ${statuses.join(' ')}`);
    assert.ok(peakDecoded <= BUDGET, `reserved ${peakDecoded} > budget ${BUDGET}`);
    // Each needs 30 MB: at most two at once fit, so the others waited for admission.
    const queued = srv.lines.filter((r) => r['type'] === 'upload' && Number(r['queuedMs']) >= 0);
    const busy = srv.lines.filter((r) => r['type'] === 'upload' && r['status'] === 503);
    assert.ok(queued.length + busy.length >= 1, 'some uploads waited for the budget');
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('serve: leftovers of a killed run are removed at start; aborts, a full inbox and header drips are handled as such', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  const inbox = join(dir, 'inbox');
  // A small file system that can really fill up (root may mount tmpfs; CI runs as root).
  mkdirSync(inbox);
  const mounted =
    spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', inbox]).status === 0;
  t.after(() => {
    if (mounted) spawnSync('umount', [inbox]);
    rmSync(dir, { recursive: true, force: true });
  });
  // Temp files as writeFileAtomic names them: one from a process that is gone (kill -9),
  // one from a live writer (this test process), and a dot file that is not ours.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const deadPid = Number(gone.stdout.toString());
  const hash = 'd'.repeat(64);
  const dead = `.${hash}.json.gz.${deadPid}.0a1b2c3d.tmp`;
  const live = `.${hash}.json.${process.pid}.0a1b2c3d.tmp`;
  for (const f of [dead, live, '.keep-me']) writeFileSync(join(inbox, f), 'partial');
  const srv = await startServe(['--inbox', inbox, '--rate-limit', '100000/1m']);
  try {
    const cleanup = srv.lines.find((r) => r['type'] === 'cleanup');
    assert.deepEqual(cleanup, { type: 'cleanup', removed: [dead] });
    assert.deepEqual(readdirSync(inbox).sort(), [live, '.keep-me'].sort());
    const { port } = new URL(srv.url);

    // Header drip: the headers must be complete 10 s after the connection opened.
    const dripSocket = connect({ host: '127.0.0.1', port: Number(port) });
    t.after(() => dripSocket.destroy());
    const drip = new Promise<{ ms: number; answer: string }>((resolve) => {
      const t0 = Date.now();
      const s = dripSocket;
      let answer = '';
      let timer: NodeJS.Timeout | undefined;
      s.on('connect', () => {
        s.write('POST / HTTP/1.1\r\nHost: x\r\n');
        timer = setInterval(() => s.write('X-Drip: 1\r\n'), 1000);
      });
      s.on('data', (d: Buffer) => (answer += d.toString()));
      s.on('error', () => undefined);
      s.on('close', () => {
        clearInterval(timer);
        resolve({ ms: Date.now() - t0, answer });
      });
    });

    // A client that hangs up mid-body is logged as an abort, not as a server error.
    await new Promise<void>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: Number(port) }, () => {
        s.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"formatV');
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 200);
      });
    });
    const aborted = await logged(srv, (r) => r['type'] === 'upload' && r['outcome'] === 'aborted');
    assert.equal(aborted['status'], 499);
    assert.match(String(aborted['error']), /closed the connection after 9 bytes/);

    // Client text in a refusal is escaped in the answer and in the log record.
    const evil = readFileSync(join(FIX, 'session-ext4-writeback.json'))
      .toString()
      .replace('"rateHz": 48000', '"rateHz": "\\u001b[2J\\u009b31m\\u202e"');
    const refused = await http(srv.url, 'POST', Buffer.from(evil));
    assert.equal(refused.status, 400);
    // eslint-disable-next-line no-control-regex
    const raw = /[\u0000-\u001f\u007f-\u009f\u202e]/;
    assert.doesNotMatch(String(refused.body['error']), raw);
    const record = await logged(srv, (r) => r['status'] === 400);
    assert.doesNotMatch(String(record['error']), raw);

    if (mounted) {
      // Fill the inbox's file system, then upload: 507 + Retry-After, not 500.
      const filler = spawnSync('dd', ['if=/dev/zero', `of=${join(inbox, 'filler')}`, 'bs=4k']);
      assert.notEqual(filler.status, null);
      const json = readFileSync(join(FIX, 'session-ext4-writeback.json'));
      const full = await http(srv.url, 'POST', json);
      assert.equal(full.status, 507, JSON.stringify(full.body));
      assert.ok(Number(full.headers['retry-after']) >= 1);
      assert.match(String(full.body['error']), /inbox is full/);
      assert.ok(!readdirSync(inbox).some((f) => f.endsWith('.tmp') && f !== live), 'no temp left');
    } else {
      t.diagnostic('tmpfs mount not permitted here: full-inbox case not run');
    }

    const { ms, answer } = await drip;
    process.stderr.write(`# header drip cut after ${ms} ms\n`);
    // Node checks every 0.5 s; allow 3 s for a loaded machine (it was 10–40 s before).
    assert.ok(ms >= 9_500 && ms <= 13_000, `header-drip socket cut after ${ms} ms`);
    assert.match(answer, /^HTTP\/1\.1 408/);
  } finally {
    await srv.stop();
  }
});

test('serve --inbox naming a file is a user error, no stack trace', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-serve-'));
  try {
    writeFileSync(join(dir, 'file'), 'x');
    const r = await runCli(['serve', '--inbox', join(dir, 'file'), '--listen', '127.0.0.1:0']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--inbox .*file: expected a folder, found a regular file/);
    assert.doesNotMatch(r.stderr, /internal error|EEXIST|at .*\.ts:\d+/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
