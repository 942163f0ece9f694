// What every run does the same way before and around its lifecycle: the stop controller
// (Ctrl-C, the dashboard, thresholds), the restore of a killed run's leftovers, and the plain
// explanation of a missing xrun_debug.
import type { Readable, Writable } from 'node:stream';
import type { AsoundDiscovery } from '../proc/index.js';
import {
  describeRestoreReport,
  explainXrunDebugAbsence,
  readKernelConfig,
  readKernelRelease,
  restorePendingJournals,
} from '../proc/index.js';

/** How a run is stopped, and why it was. */
export interface RunStopper {
  readonly signal: AbortSignal;
  /** Stops the run (the first reason wins). */
  request(reason: string): void;
  readonly reason: string | null;
  /** The user's signal (Ctrl-C) was the cause. */
  readonly interrupted: boolean;
}

/** Creates the stop controller of a run, following the user's `signal`. */
export function createRunStopper(signal: AbortSignal, interruptedReason: string): RunStopper {
  const ctl = new AbortController();
  let reason: string | null = null;
  const request = (why: string): void => {
    if (ctl.signal.aborted) return;
    reason = why;
    ctl.abort(new Error(why));
  };
  if (signal.aborted) request(interruptedReason);
  else signal.addEventListener('abort', () => request(interruptedReason), { once: true });
  return {
    signal: ctl.signal,
    request,
    get reason() {
      return reason;
    },
    get interrupted() {
      return signal.aborted;
    },
  };
}

/** Puts back what a killed earlier run left changed (asks first when interactive). */
export async function restoreLeftovers(
  journalDir: string,
  io: { stderr: Writable; stdin: Readable; interactive: boolean },
  warn: (message: string) => void,
): Promise<void> {
  const pending = await restorePendingJournals(journalDir, io);
  for (const r of pending.restored)
    warn(`restored settings left by a killed run (${describeRestoreReport(r.report).join('; ')})`);
}

/** Why this machine has no xrun_debug, and how to get it (from /proc, /boot and the config). */
export function explainNoXrunDebug(
  roots: { procRoot: string; bootRoot: string },
  discovery: AsoundDiscovery,
  kernelRelease: string,
): { message: string; hint: string } {
  const cfg = readKernelConfig({
    procRoot: roots.procRoot,
    bootRoot: roots.bootRoot,
    release: readKernelRelease(roots.procRoot),
  });
  return explainXrunDebugAbsence({
    procRoot: roots.procRoot,
    asoundPresent: discovery.present,
    cardCount: discovery.cards.length,
    streamCount: discovery.streams.length,
    kernelRelease,
    config: cfg.config,
    configSource: cfg.source,
    configTried: cfg.tried,
  });
}
