// The receiver in-process on a real loopback socket, with small limits so each bound is hit
// deterministically: per-client uploads, body-bytes budget, multi-member gzip (the trailer
// understates the size), gzip inside gzip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { startReceiver, type ReceiverLimits, type UploadResult } from './receiver.js';

const FIX = fileURLToPath(new URL('../../test/fixtures/bundles/', import.meta.url));
const JSON_BUNDLE = readFileSync(join(FIX, 'session-ext4-writeback.json'));

async function withReceiver(
  limits: Partial<ReceiverLimits>,
  maxBytes: number,
  body: (url: string, results: UploadResult[], inbox: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-rx-'));
  const results: UploadResult[] = [];
  const rx = await startReceiver({
    inbox: dir,
    token: null,
    maxBytes,
    rateLimit: { count: 100_000, periodMs: 60_000 },
    limits,
    host: '127.0.0.1',
    port: 0,
    onResult: (r) => results.push(r),
  });
  try {
    await body(rx.url, results, dir);
  } finally {
    await rx.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function post(
  url: string,
  body: Buffer,
  localAddress = '127.0.0.1',
): Promise<{ status: number; retryAfter: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-length': String(body.length) },
      agent: false,
      localAddress,
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens an upload that declares a body and sends none (held open until destroyed). */
function holdOpen(url: string, localAddress: string): Promise<Socket> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port: Number(port), localAddress }, () => {
      s.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n');
      resolve(s);
    });
    s.on('error', () => undefined);
  });
}

test('one client gets at most uploadsPerClient open uploads; other clients are not affected', async () => {
  // placeWaitMs 0: no waiting for the young uploads to become displaceable.
  await withReceiver({ uploadsPerClient: 2, placeWaitMs: 0 }, 1 << 20, async (url) => {
    const held = [await holdOpen(url, '127.0.0.1'), await holdOpen(url, '127.0.0.1')];
    try {
      await new Promise((r) => setTimeout(r, 100));
      const third = await post(url, JSON_BUNDLE, '127.0.0.1');
      assert.equal(third.status, 429);
      assert.equal(third.retryAfter, '1');
      assert.match(third.text, /too many uploads at once from 127\.0\.0\.1 \(at most 2\)/);
      const other = await post(url, JSON_BUNDLE, '127.0.0.9');
      assert.equal(other.status, 201, other.text);
    } finally {
      for (const s of held) s.destroy();
    }
    // Places are given back when the connections go.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await post(url, JSON_BUNDLE, '127.0.0.1')).status, 200);
  });
});

test('bodies past the global body-bytes budget get 503 + Retry-After, and the budget is given back', async () => {
  await withReceiver({ bodyBytesBudget: 100_000 }, 1 << 20, async (url, results) => {
    const big = Buffer.concat([JSON_BUNDLE, Buffer.alloc(150_000, 0x20)]);
    const r = await post(url, big).catch(() => ({ status: -1, retryAfter: undefined, text: '' }));
    // The server answers 503 and closes; the client may see the answer or the reset.
    assert.ok(r.status === 503 || r.status === -1, `status ${r.status}`);
    if (r.status === 503) assert.equal(r.retryAfter, '5');
    assert.equal(results.at(-1)?.status, 503);
    assert.match(String(results.at(-1)?.error), /too many bundle bytes arriving at once/);
    const ok = await post(url, JSON_BUNDLE);
    assert.equal(ok.status, 201, 'the budget came back');
  });
});

test('a multi-member gzip (trailer understates the size) is still read; gzip inside gzip is refused', async () => {
  await withReceiver({}, 1 << 20, async (url, _results, inbox) => {
    const text = JSON_BUNDLE.toString();
    const half = Math.floor(text.length / 2);
    const twoMembers = Buffer.concat([
      gzipSync(text.slice(0, half)),
      gzipSync(text.slice(half) + ' '.repeat(100_000)),
    ]);
    const multi = await post(url, twoMembers);
    assert.equal(multi.status, 201, multi.text);
    assert.equal(readdirSync(inbox).filter((f) => f.endsWith('.json.gz')).length, 1);
    const nested = await post(url, gzipSync(gzipSync(JSON_BUNDLE)));
    assert.equal(nested.status, 400);
    assert.match(nested.text, /gzip inside gzip/);
    const bomb = await post(url, gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20)));
    assert.equal(bomb.status, 400);
    assert.match(bomb.text, /decompresses to more than 33554432 bytes/);
  });
});

test('a client at its limit displaces its own stalled upload (open ≥ 1 s, below the rate)', async () => {
  await withReceiver({ uploadsPerClient: 2 }, 1 << 20, async (url, results) => {
    const held = [await holdOpen(url, '127.0.0.1'), await holdOpen(url, '127.0.0.1')];
    const answers: string[] = [];
    for (const s of held) s.on('data', (d: Buffer) => answers.push(d.toString()));
    try {
      await new Promise((r) => setTimeout(r, 1200));
      const valid = await post(url, JSON_BUNDLE, '127.0.0.1');
      assert.equal(valid.status, 201, valid.text);
      const displaced = results.filter((r) => r.status === 408);
      assert.equal(displaced.length, 1);
      assert.match(String(displaced[0]!.error), /displaced by a newer upload from 127\.0\.0\.1/);
      await new Promise((r) => setTimeout(r, 100));
      assert.match(answers.join(''), /^HTTP\/1\.1 408/);
    } finally {
      for (const s of held) s.destroy();
    }
  });
});

test('GET /schema serves format 2, /schema?v=1 the frozen format 1 file, an unknown v a 404 that says what exists', async () => {
  await withReceiver({}, 1 << 20, async (url) => {
    const newest = await fetch(`${url}schema`);
    assert.equal(newest.status, 200);
    const doc = JSON.parse(await newest.text()) as { $id: string };
    assert.match(doc.$id, /bundle-v2\.schema\.json$/);
    const v1 = await fetch(`${url}schema?v=1`);
    assert.equal(v1.status, 200);
    const v1File = readFileSync(
      new URL('../../schema/bundle-v1.schema.json', import.meta.url),
      'utf8',
    );
    assert.equal(await v1.text(), v1File);
    const none = await fetch(`${url}schema?v=9`);
    assert.equal(none.status, 404);
    assert.match(await none.text(), /published are 1, 2/);
  });
});

test('every receiver answer carries the security headers (serve --web shares its origin with the pages)', async () => {
  await withReceiver({}, 1 << 20, async (url) => {
    const answers = [
      await fetch(new URL('/healthz', url)),
      await fetch(new URL('/schema', url)),
      await fetch(new URL('/schema?v=999', url)),
      await fetch(new URL('/elsewhere', url), { method: 'POST', body: '{}' }),
      await fetch(new URL('/bundles', url), { method: 'PUT', body: '{}' }),
      await fetch(url, { method: 'POST', body: '{"not":"a bundle"}' }),
    ];
    for (const r of answers) {
      assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'/, r.url);
      assert.doesNotMatch(r.headers.get('content-security-policy') ?? '', /unsafe-inline/);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', r.url);
      await r.arrayBuffer();
    }
  });
});
