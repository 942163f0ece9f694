// `metadata`: the create / write / rename / unlink storm of `tar x` followed by `rm -rf`:
// a tree of many small files is created, every file renamed, then the tree removed.
import { mkdirSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KindSpec } from '../kind-spec.js';

// Source trees are mostly 1–16 KiB files, ~100 per directory; 2000 files per round keeps a
// round short (a stop is honoured between operations anyway) and the tree realistic.
const MAX_FILES_PER_ROUND = 2000;
const FILES_PER_DIR = 100;
const MIN_FILE = 1024;
const MAX_FILE = 16 * 1024;

export const metadataLoad: KindSpec = {
  kind: 'metadata',
  summary: 'create/write/rename/unlink storm over a tree of small files (tar x, rm -rf)',
  opsUnit: 'file op',
  sizeBounds: 'disk',
  defaultSizeBytes: () => 64 * 1024 ** 2,
  defaultWorkers: () => 1,
  usesWorkers: true,
  async run(ctx, config) {
    const data = Buffer.alloc(MAX_FILE, 0x3c);
    // A fixed LCG so file sizes vary like a real tree yet every run is the same.
    let seed = 12345 + config.index;
    const nextSize = (): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return MIN_FILE + (seed % (MAX_FILE - MIN_FILE + 1));
    };
    ctx.beginActive();
    for (let round = 0; ; round++) {
      const root = join(config.dir, `tree-${round}`);
      const created: string[] = [];
      const dirs: string[] = [root];
      let stop = false;
      try {
        mkdirSync(root);
        let bytes = 0;
        for (let i = 0; i < MAX_FILES_PER_ROUND && !stop; i++) {
          if (i % FILES_PER_DIR === 0) {
            const d = join(root, `d${i / FILES_PER_DIR}`);
            mkdirSync(d);
            dirs.push(d);
          }
          const size = nextSize();
          if (bytes + size > config.sizeBytes && created.length > 0) break;
          const file = join(dirs[dirs.length - 1]!, `f${i}.tmp`);
          writeFileSync(file, data.subarray(0, size));
          created.push(file);
          bytes += size;
          stop = await ctx.tick(size, 1);
        }
        for (let i = 0; i < created.length && !stop; i++) {
          const to = created[i]!.replace(/\.tmp$/, '.c');
          renameSync(created[i]!, to);
          created[i] = to;
          stop = await ctx.tick(0, 1);
        }
      } finally {
        // rm -rf: always runs, also when stopping, so a round leaves nothing behind.
        for (const file of created) {
          unlinkSync(file);
          await ctx.tick(0, 1);
        }
        for (const d of dirs.reverse()) {
          try {
            rmdirSync(d);
          } catch {
            // not created (the round stopped before it): nothing to remove
          }
        }
      }
      if (stop || ctx.stopped) return;
    }
  },
};
