// `write`: large sequential buffered writes with a periodic fsync, the shape of `dd` and
// bonnie++'s block output. Each file grows to the worker's size, then the next replaces it.
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { KindSpec } from '../kind-spec.js';

const MiB = 1024 ** 2;
// 1 MiB writes, as dd bs=1M: the syscall cost vanishes next to the copy into the page
// cache, and the source block stays in the CPU cache.
const BLOCK_BYTES = 1 * MiB;
// fsync at the end of every file and at least every 1 GiB within a big one: each fsync pays
// a journal commit and a device cache flush, so one per GiB keeps the cost at the level of
// the peer (dd conv=fsync, bench/load.ts) while long runs still flush regularly.
const FSYNC_EVERY_BYTES = 1024 * MiB;

export const writeLoad: KindSpec = {
  kind: 'write',
  summary: 'large sequential writes with a periodic fsync (dd, bonnie++ block output)',
  opsUnit: undefined,
  sizeBounds: 'disk',
  defaultSizeBytes: () => 1024 * MiB,
  defaultWorkers: () => 1,
  usesWorkers: true,
  async run(ctx, config) {
    const block = Buffer.alloc(BLOCK_BYTES, 0xa5);
    const fileSize = Math.max(config.sizeBytes, 1);
    ctx.beginActive();
    for (let n = 0; ; n++) {
      const path = join(config.dir, `write-${n}.dat`);
      const fd = openSync(path, 'w');
      let stop = false;
      try {
        let written = 0;
        let sinceSync = 0;
        while (written < fileSize && !stop) {
          const len = Math.min(BLOCK_BYTES, fileSize - written);
          const w = writeSync(fd, block, 0, len);
          written += w;
          sinceSync += w;
          if (sinceSync >= FSYNC_EVERY_BYTES) {
            fsyncSync(fd);
            sinceSync = 0;
          }
          stop = await ctx.tick(w);
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (stop) return;
      // The finished file goes; the last one stays for the parent's cleanup, so the final
      // timing covers write + fsync only (as dd's does).
      unlinkSync(path);
    }
  },
};
