// `read`: sequential and random reads of one large file, the page-cache churn of backups,
// media scans and `updatedb`. With `dropCaches` (root) the page cache is emptied after the
// file is written and at every pass, so reads really go to the disk.
import { closeSync, fsyncSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, XrunhuntError } from '../../errors.js';
import type { KindSpec } from '../kind-spec.js';

const MiB = 1024 ** 2;
// Sequential reads in 1 MiB blocks (readahead-sized); after every 16 MiB, 16 random 4 KiB
// reads: a mix that keeps both readahead and seeks busy.
const SEQ_BLOCK = 1 * MiB;
const RANDOM_EVERY = 16 * MiB;
const RANDOM_READS = 16;
const RANDOM_BLOCK = 4096;
const PREP_BLOCK = 4 * MiB;

/** Empties the clean page cache (root only): `echo 1 > /proc/sys/vm/drop_caches`. */
export function dropPageCache(): void {
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '1\n');
  } catch (err) {
    throw new XrunhuntError(
      'permission',
      `cannot drop the page cache: writing /proc/sys/vm/drop_caches failed (${errnoCode(err) ?? String(err)}); ` +
        'inside a container /proc/sys is often read-only',
      { cause: err },
    );
  }
}

export const readLoad: KindSpec = {
  kind: 'read',
  summary: 'sequential and random reads of a file larger than stays hot (--drop-caches as root)',
  opsUnit: 'read',
  sizeBounds: 'disk',
  defaultSizeBytes: () => 1024 * MiB,
  defaultWorkers: () => 1,
  usesWorkers: true,
  async run(ctx, config) {
    const path = join(config.dir, 'read.dat');
    const size = Math.max(config.sizeBytes, SEQ_BLOCK);
    // Preparation: write the file (not counted as throughput), bounded by the same deadline.
    const fd = openSync(path, 'w+');
    try {
      const block = Buffer.alloc(PREP_BLOCK, 0x42);
      for (let off = 0; off < size;) {
        off += writeSync(fd, block, 0, Math.min(PREP_BLOCK, size - off), off);
        if (await ctx.tick()) return;
      }
      fsyncSync(fd);
      const buf = Buffer.alloc(SEQ_BLOCK);
      // Same LCG in every run: random offsets that are reproducible.
      let seed = 777 + config.index;
      const blocks = Math.floor(size / RANDOM_BLOCK);
      ctx.beginActive();
      for (;;) {
        if (config.dropCaches) dropPageCache();
        for (let off = 0; off < size;) {
          const n = readSync(fd, buf, 0, SEQ_BLOCK, off);
          if (n <= 0) break;
          off += n;
          if (await ctx.tick(n, 1)) return;
          if (off % RANDOM_EVERY === 0) {
            for (let r = 0; r < RANDOM_READS; r++) {
              seed = (seed * 1103515245 + 12345) >>> 0;
              const m = readSync(fd, buf, 0, RANDOM_BLOCK, (seed % blocks) * RANDOM_BLOCK);
              if (await ctx.tick(m, 1)) return;
            }
          }
        }
      }
    } finally {
      closeSync(fd);
    }
  },
};
