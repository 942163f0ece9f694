// `fsync`: small appends each followed by fsync, the journal-commit pressure of mail
// spools, databases and editors saving files.
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { KindSpec } from '../kind-spec.js';

// 4 KiB: one page, the smallest write that still dirties a whole block.
const WRITE_BYTES = 4096;

export const fsyncLoad: KindSpec = {
  kind: 'fsync',
  summary: 'small writes each followed by fsync (journal commit pressure)',
  opsUnit: 'fsync',
  sizeBounds: 'disk',
  defaultSizeBytes: () => 64 * 1024 ** 2,
  defaultWorkers: () => 1,
  usesWorkers: true,
  async run(ctx, config) {
    const block = Buffer.alloc(WRITE_BYTES, 0x5a);
    const fileSize = Math.max(config.sizeBytes, WRITE_BYTES);
    ctx.beginActive();
    for (let n = 0; ; n++) {
      const path = join(config.dir, `fsync-${n}.dat`);
      const fd = openSync(path, 'a');
      let stop = false;
      try {
        for (let written = 0; written < fileSize && !stop; written += WRITE_BYTES) {
          writeSync(fd, block);
          fsyncSync(fd);
          stop = await ctx.tick(WRITE_BYTES, 1);
        }
      } finally {
        closeSync(fd);
      }
      unlinkSync(path);
      if (stop) return;
    }
  },
};
