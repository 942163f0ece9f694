// What every run does the same way before and around its lifecycle: the stop controller
// (Ctrl-C, the dashboard, thresholds) and the plain explanation of a missing xrun_debug (the
// restore of a killed run's leftovers happens under the settings lock, in lifecycle.ts).
import type { Writable } from 'node:stream';
import type { RunContext } from './probe.js';
import { createRunNotes, type RunNotes } from './run-notes.js';
import type { AsoundDiscovery } from '../proc/index.js';
import { explainXrunDebugAbsence, readKernelConfig, readKernelRelease } from '../proc/index.js';
import { errorMessage } from '../errors.js';

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

/** The clock, notes and context of one run; warnings also go out as `warning` events. */
export function createRunContext(
  now: () => bigint,
  stopper: RunStopper,
  emit: (e: { type: 'warning'; timeMs: number; message: string }) => void,
  io: { progress: boolean; stderr: Writable },
): { ctx: RunContext; notes: RunNotes; t0: bigint; elapsed: () => number } {
  const t0 = now();
  const elapsed = (): number => Number(now() - t0) / 1e6;
  const notes = createRunNotes({
    emitWarning: (message) => emit({ type: 'warning', timeMs: elapsed(), message }),
    progress: io.progress,
    stderr: io.stderr,
  });
  const ctx: RunContext = {
    t0,
    elapsed,
    stop: stopper.signal,
    requestStop: stopper.request,
    notes,
  };
  return { ctx, notes, t0, elapsed };
}

/**
 * The exit code of a run, and a failed run's end on its bus: the dashboard and the event
 * log must see the end even when the run threw (after restoring).
 */
export function settleRun<T extends { exitCode: number }>(
  outcome: Promise<T>,
  what: string,
  bus: {
    readonly isEnded: boolean;
    emit(
      e:
        | { type: 'warning'; timeMs: number; message: string }
        | { type: 'session-end'; timeMs: number; exitCode: number },
    ): void;
  },
): Promise<number> {
  outcome.catch((err: unknown) => {
    if (bus.isEnded) return;
    bus.emit({
      type: 'warning',
      timeMs: 0,
      message: `${what} failed: ${errorMessage(err)}`,
    });
    bus.emit({ type: 'session-end', timeMs: 0, exitCode: 1 });
  });
  const done = outcome.then((o) => o.exitCode);
  done.catch(() => undefined);
  return done;
}
