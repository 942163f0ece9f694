// `memory`: anonymous memory pressure. The worker maps its share of `--size` and keeps
// writing every page, so the kernel must reclaim page cache (and compact) to serve it, and
// the rewriting passes keep the memory bus busy. Throughput is the memory write rate.
import type { KindSpec } from '../kind-spec.js';
import { maxMemoryLoad } from '../safety.js';

const MiB = 1024 ** 2;
const PAGE = 4096;
// Allocated in 64 MiB chunks: each is its own mmap (untouched until written) and a failed
// allocation loses little.
const CHUNK = 64 * MiB;
// Bytes written between ticks: 1 MiB.
const PAGES_PER_TICK = MiB / PAGE;

export const memoryLoad: KindSpec = {
  kind: 'memory',
  summary: 'anonymous memory pressure that forces reclaim (bounded by --size and free memory)',
  opsUnit: 'page',
  sizeBounds: 'memory',
  // Default: half of what may be taken safely; enough to push most of the page cache out.
  defaultSizeBytes: (memory) => Math.floor(maxMemoryLoad(memory) / 2),
  defaultWorkers: () => 1,
  usesWorkers: true,
  async run(ctx, config) {
    const chunks: Buffer[] = [];
    let value = 1;
    ctx.beginActive();
    for (;;) {
      // First pass allocates; every pass writes every page again so none stay idle for reclaim.
      for (let c = 0; c * CHUNK < config.sizeBytes; c++) {
        let chunk = chunks[c];
        if (!chunk) {
          chunk = Buffer.allocUnsafeSlow(Math.min(CHUNK, config.sizeBytes - c * CHUNK));
          chunks.push(chunk);
        }
        for (let p = 0; p < chunk.length;) {
          const end = Math.min(chunk.length, p + PAGES_PER_TICK * PAGE);
          chunk.fill(value, p, end);
          const bytes = end - p;
          p = end;
          if (await ctx.tick(bytes, Math.ceil(bytes / PAGE))) return;
        }
      }
      value = (value + 1) & 0xff;
    }
  },
};
