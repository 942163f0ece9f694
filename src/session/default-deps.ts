// The real machine behind a session: /proc discovery, the playback worker, load generators
// and the kernel-log capture. Tests replace single members.
import { discoverAsound } from '../proc/index.js';
import { startPlayback } from '../playback/index.js';
import { createLoad } from '../load/index.js';
import { defaultCaptureCandidates, selectCapture } from '../kernel/source-select.js';
import { kprobeCaptureCandidate } from '../kernel/source-kprobe.js';
import { gatherFacts, runChecks } from '../doctor/index.js';
import type { SessionDeps } from './run-session.js';

/** The production dependencies of a session. */
export function defaultSessionDeps(): SessionDeps {
  return {
    now: () => process.hrtime.bigint(),
    discover: (procRoot) => discoverAsound(procRoot),
    startPlayback: (options, ctx) => startPlayback(options, ctx),
    createLoad: (kind, options) => createLoad(kind, options),
    selectCapture: (capture, signal, context) => {
      // kprobe: only the kprobe; auto without xrun_debug: the kprobe first, then the kernel log.
      const kprobe = () =>
        kprobeCaptureCandidate({
          journalDir: context?.journalDir ?? '/run/xrunhunt',
          toolVersion: context?.toolVersion ?? 'unknown',
          command: context?.command ?? `session --capture ${capture}`,
        });
      if (capture === 'kprobe') return selectCapture('trace_pipe', signal, [kprobe()]);
      if (capture === 'auto' && context && !context.xrunDebugAvailable)
        return selectCapture(capture, signal, [kprobe(), ...defaultCaptureCandidates()]);
      return selectCapture(capture, signal);
    },
    preflight: (roots) =>
      runChecks(gatherFacts({ ...roots, devRoot: '/dev' })).checks.map((c) => ({
        id: c.id,
        status: c.status,
        message: c.advice ? `${c.summary} (${c.advice})` : c.summary,
      })),
  };
}
