// Hostile-peer measurements for `xrunhunt serve` (not a test; the e2e tests run short
// versions). Starts the real serve process on loopback with a token, then measures
//   1. memory: 64 concurrent uploads (16 client addresses × 4) of ~32 KB gzip that each
//      inflate to 32 MB of valid JSON (a bundle followed by whitespace): statuses, and the
//      serve process's peak RSS (VmHWM) — goal < 400 MB (it was 1.65 GB before the
//      decompressed-bytes budget);
//   2. a slow-body attack for --attack DURATION (default 60 s): 40 authenticated uploads
//      (5 addresses × 8, including the valid client's own 127.0.0.1) declaring 1,000,000
//      bytes and sending one byte every 2 s, reconnecting when cut, while a valid client
//      uploads a fresh bundle every 250 ms with a 5 s deadline — goal: 100 % accepted.
// Usage: node --import tsx bench/serve-hostile.ts [--attack 60s] [--uploads 64]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { syntheticBundle } from '../src/bundle/synthetic-fleet.js';
import { validateBundle } from '../src/bundle/validate.js';
import { parseDuration } from '../src/units.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const attackMs = parseDuration(opt('--attack') ?? '60s', '--attack');
const uploads = Number(opt('--uploads') ?? 64);
const EXPANDED = 32_000_000;
const TOKEN = 'bench-token-0123456789abcdef';
const root = fileURLToPath(new URL('../', import.meta.url));

const base = validateBundle(
  JSON.parse(readFileSync(join(root, 'test/fixtures/bundles/session-ext4-writeback.json'), 'utf8')),
);

function post(body: Buffer, ms: number, localAddress: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-length': String(body.length), authorization: `Bearer ${TOKEN}` },
      agent: false,
      signal: AbortSignal.timeout(ms),
      localAddress,
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

function memoryOf(pid: number): { rssMb: number; hwmMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]);
  return { rssMb: Math.round(kb('VmRSS') / 1024), hwmMb: Math.round(kb('VmHWM') / 1024) };
}

const tally = (xs: number[]): string => {
  const m = new Map<number, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return [...m].map(([k, v]) => `${v}× ${k}`).join(', ');
};

const dir = mkdtempSync(join(tmpdir(), 'xrh-bench-serve-'));
writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    join(root, 'src/cli/main.ts'),
    'serve',
    '--inbox',
    join(dir, 'inbox'),
    '--listen',
    '127.0.0.1:0',
    '--token',
    join(dir, 'token'),
    '--rate-limit',
    '1000000/1m',
    '--json',
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const url = await new Promise<string>((resolve) => {
  createInterface({ input: child.stdout! }).on('line', (l) => {
    const rec = JSON.parse(l) as Record<string, unknown>;
    if (rec['type'] === 'listening') resolve(rec['url'] as string);
  });
});
const port = Number(new URL(url).port);
try {
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const idle = memoryOf(child.pid!);
  console.log(`serve idle: RSS ${idle.rssMb} MB`);

  // 1. Memory under expanding uploads.
  const bodies = Array.from({ length: uploads }, (_, i) => {
    const text = JSON.stringify(syntheticBundle(base, 1_000_000 + i, 50));
    return gzipSync(text + ' '.repeat(EXPANDED - text.length));
  });
  const t0 = Date.now();
  const statuses = await Promise.all(
    bodies.map((b, i) => post(b, 120_000, `127.0.0.${10 + (i % 16)}`)),
  );
  const mem = memoryOf(child.pid!);
  console.log(
    `${uploads} uploads of ${Math.round(bodies[0]!.length / 1024)} KB gzip → ${EXPANDED / 1e6} MB JSON each: ${tally(statuses)} in ${Date.now() - t0} ms; serve peak RSS ${mem.hwmMb} MB (goal < 400 MB)`,
  );

  // 2. Slow-body attack while a valid client keeps uploading.
  const attackEnd = Date.now() + attackMs;
  const sockets = new Set<Socket>();
  let attackConnections = 0;
  let cut408 = 0;
  const attacker = async (localAddress: string): Promise<void> => {
    while (Date.now() < attackEnd) {
      await new Promise<void>((done) => {
        const s = connect({ host: '127.0.0.1', port, localAddress });
        attackConnections++;
        sockets.add(s);
        let drip: NodeJS.Timeout | undefined;
        s.on('connect', () => {
          s.write(
            `POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 1000000\r\n\r\n`,
          );
          drip = setInterval(() => s.write('{'), 2000);
        });
        s.on('data', (d: Buffer) => {
          if (d.toString().startsWith('HTTP/1.1 408')) cut408++;
        });
        s.on('error', () => undefined);
        s.on('close', () => {
          clearInterval(drip);
          sockets.delete(s);
          done();
        });
      });
    }
  };
  const attack = Promise.all(
    Array.from({ length: 40 }, (_, i) => attacker(`127.0.0.${1 + (i % 5)}`)),
  );
  const stop = setTimeout(() => {
    for (const s of sockets) s.destroy();
  }, attackMs);
  await new Promise((r) => setTimeout(r, 1000));
  const valid: number[] = [];
  const latencies: number[] = [];
  for (let i = 0; Date.now() < attackEnd - 1000; i++) {
    const body = gzipSync(JSON.stringify(syntheticBundle(base, i, 50)));
    const t = Date.now();
    valid.push(await post(body, 5_000, '127.0.0.1'));
    latencies.push(Date.now() - t);
    await new Promise((r) => setTimeout(r, 250));
  }
  await attack;
  clearTimeout(stop);
  latencies.sort((a, b) => a - b);
  const ok = valid.filter((s) => s === 201).length;
  console.log(
    `slow-body attack ${attackMs / 1000} s: ${ok}/${valid.length} valid uploads accepted (${((100 * ok) / valid.length).toFixed(1)} %; ${tally(valid)}); latency p50 ${latencies[Math.floor(latencies.length / 2)]} ms, max ${latencies.at(-1)} ms; ${attackConnections} attack connections, ${cut408} answered 408`,
  );
  console.log(
    `after: serve RSS ${memoryOf(child.pid!).rssMb} MB, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
