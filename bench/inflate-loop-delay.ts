// How long an upload's decompression blocks the receiver's event loop (not a test): the
// largest event-loop delay (perf_hooks) while inflating one large gzip body with the
// receiver's inflateBounded (zlib's async streaming, on the thread pool) against the peer
// gunzipSync (the same work on the event loop), in the same run.
// Usage: node --import tsx bench/inflate-loop-delay.ts [--mb 32]
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gunzipSync, gzipSync } from 'node:zlib';
import { inflateBounded } from '../src/net/bounded-inflate.js';

const args = process.argv.slice(2);
const mb = Number(args[args.indexOf('--mb') + 1] ?? NaN) || 32;
// JSON-like text that compresses like a bundle's frames (about 10:1).
const line = (i: number): string =>
  `{"kind":"xrun","frames":["RIP: _raw_spin_unlock_irq+0x${(i * 7919) % 65536}","__filemap_add_folio+0x1a/0x40","ext4_writepages"]},\n`;
const parts: string[] = [];
let size = 0;
for (let i = 0; size < mb * 1024 * 1024; i++) {
  const l = line(i);
  parts.push(l);
  size += l.length;
}
const raw = Buffer.from(parts.join(''));
const gz = gzipSync(raw);

async function maxDelayMs(
  work: () => Promise<unknown>,
): Promise<{ maxMs: number; p99Ms: number; wallMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  // A timer that keeps the loop ticking, as other clients' requests would.
  const tick = setInterval(() => undefined, 1);
  h.enable();
  const t0 = performance.now();
  await work();
  const wallMs = performance.now() - t0;
  h.disable();
  clearInterval(tick);
  return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, wallMs };
}

// Baseline: the loop doing nothing for a while (on a loaded machine, scheduling alone delays it).
const idle = await maxDelayMs(() => new Promise((r) => setTimeout(r, 800)));
const asyncRun = await maxDelayMs(() => inflateBounded(gz, raw.length + 1, raw.length));
const syncRun = await maxDelayMs(async () => {
  await new Promise((r) => setTimeout(r, 5));
  gunzipSync(gz);
  await new Promise((r) => setTimeout(r, 5));
});
console.log(
  `inflating ${(gz.length / 1e6).toFixed(1)} MB gzip → ${(raw.length / 1e6).toFixed(1)} MB`,
);
console.log(
  `  idle loop (baseline):                max event-loop delay ${idle.maxMs.toFixed(1)} ms, p99 ${idle.p99Ms.toFixed(1)} ms`,
);
console.log(
  `  inflateBounded (async, thread pool): max event-loop delay ${asyncRun.maxMs.toFixed(1)} ms, p99 ${asyncRun.p99Ms.toFixed(1)} ms (wall ${asyncRun.wallMs.toFixed(0)} ms)`,
);
console.log(
  `  gunzipSync (peer, on the loop):      max event-loop delay ${syncRun.maxMs.toFixed(1)} ms, p99 ${syncRun.p99Ms.toFixed(1)} ms (wall ${syncRun.wallMs.toFixed(0)} ms)`,
);
console.log(
  `  ratio ${(syncRun.maxMs / Math.max(asyncRun.maxMs, 0.001)).toFixed(1)}×; load average ${loadavg()[0]!.toFixed(1)}`,
);
