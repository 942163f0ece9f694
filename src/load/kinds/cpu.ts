// `cpu`: busy work on N cores (SHA-256 over a buffer), the compile-job share of a build
// without its IO: it tests scheduling latency rather than the block layer.
import { createHash } from 'node:crypto';
import type { KindSpec } from '../kind-spec.js';

// 64 KiB per hash: ~100 µs of work, many ticks per second.
const HASH_BYTES = 64 * 1024;

export const cpuLoad: KindSpec = {
  kind: 'cpu',
  summary: 'busy work on N cores (--workers, default: all cores)',
  opsUnit: 'hash',
  sizeBounds: 'none',
  defaultSizeBytes: () => 0,
  defaultWorkers: (cores) => cores,
  usesWorkers: true,
  async run(ctx) {
    const data = Buffer.alloc(HASH_BYTES, 0x11);
    ctx.beginActive();
    for (;;) {
      createHash('sha256').update(data).digest();
      if (await ctx.tick(HASH_BYTES, 1)) return;
    }
  },
};
