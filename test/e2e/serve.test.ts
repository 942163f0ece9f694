// `xrunhunt serve` + `xrunhunt submit` end to end over real loopback HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
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
  const r3 = await runCli(['serve']);
  assert.equal(r3.code, 1);
  assert.match(r3.stderr, /serve needs --inbox DIR/);
  rmSync(dir, { recursive: true, force: true });
});

test('serve: 1,000 concurrent small uploads on loopback are all answered and stored, with bounded work in flight', async () => {
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
    const answers = await Promise.all(
      bodies.map((b) =>
        http(srv.url, 'POST', b).catch((e: Error) => ({
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
      const again = await Promise.all(retry.map((b) => http(srv.url, 'POST', b)));
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
    assert.deepEqual(lines.at(-1), { type: 'stopped', accepted: 0, duplicate: 0, rejected: 0 });
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
