// The real machine behind a session: /proc discovery, the playback worker, load generators
// and the kernel-log capture. Tests replace single members.
import { discoverAsound } from '../proc/index.js';
import { startPlayback } from '../playback/index.js';
import { createLoad } from '../load/index.js';
import { selectCapture } from '../kernel/source-select.js';
import { gatherFacts, runChecks } from '../doctor/index.js';
import type { SessionDeps } from './run-session.js';

/** The production dependencies of a session. */
export function defaultSessionDeps(): SessionDeps {
  return {
    now: () => process.hrtime.bigint(),
    discover: (procRoot) => discoverAsound(procRoot),
    startPlayback: (options, ctx) => startPlayback(options, ctx),
    createLoad: (kind, options) => createLoad(kind, options),
    selectCapture: (capture, signal) => selectCapture(capture, signal),
    preflight: (roots) =>
      runChecks(gatherFacts({ ...roots, devRoot: '/dev' })).checks.map((c) => ({
        id: c.id,
        status: c.status,
        message: c.advice ? `${c.summary} (${c.advice})` : c.summary,
      })),
  };
}
