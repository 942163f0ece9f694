// `fork`: a fork/exec storm of short-lived processes, the shape of `make -j`: every worker
// keeps starting `sh -c true` (make runs each recipe line through the shell).
import { spawnSync } from 'node:child_process';
import { XrunhuntError } from '../../errors.js';
import type { KindSpec } from '../kind-spec.js';

export const forkLoad: KindSpec = {
  kind: 'fork',
  summary: 'fork/exec storm of short processes (make -j; --workers, default: all cores)',
  opsUnit: 'process',
  sizeBounds: 'none',
  defaultSizeBytes: () => 0,
  defaultWorkers: (cores) => cores,
  usesWorkers: true,
  async run(ctx) {
    ctx.beginActive();
    for (;;) {
      const r = spawnSync('/bin/sh', ['-c', 'true'], { stdio: 'ignore' });
      if (r.error) {
        throw new XrunhuntError('resource', `cannot start /bin/sh: ${r.error.message}`, {
          cause: r.error,
        });
      }
      if (await ctx.tick(0, 1)) return;
    }
  },
};
