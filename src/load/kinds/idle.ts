// `idle`: a phase with no load at all, the baseline every session needs.
import type { KindSpec } from '../kind-spec.js';

export const idleLoad: KindSpec = {
  kind: 'idle',
  summary: 'no load (a baseline phase)',
  opsUnit: undefined,
  sizeBounds: 'none',
  defaultSizeBytes: () => 0,
  defaultWorkers: () => 0,
  usesWorkers: false,
  run() {
    return Promise.resolve();
  },
};
