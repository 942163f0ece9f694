// The plug-in contract of a run. Everything that touches the machine during a session, a
// watch or a stress cell — the kernel capture, xrun_debug, playback, the load sampler, and
// next the flight recorder and the sound-server join — is a probe registered on the one
// lifecycle (lifecycle.ts), which calls its hooks in rtla's order. A probe contributes
// events to the run's bus through the context and files to the bundle through bundleFiles().
import type { RunNotes } from './run-notes.js';

/** What every hook of a probe gets from the run. */
export interface RunContext {
  /** CLOCK_MONOTONIC at the start of the run, ns. */
  readonly t0: bigint;
  /** Milliseconds since t0. */
  elapsed(): number;
  /** Aborts when the run is asked to stop (Ctrl-C, the dashboard, a threshold). */
  readonly stop: AbortSignal;
  requestStop(reason: string): void;
  readonly notes: RunNotes;
}

/** An extra file a probe adds to the bundle folder (scrubbed like the rest). */
export interface BundleFile {
  name: string;
  text: string;
}

/** One plug-in of the lifecycle; every hook is optional. */
export interface RunProbe {
  readonly name: string;
  /** Reads the machine; changes nothing. */
  init?(ctx: RunContext): void | Promise<void>;
  /** Changes settings and starts capturing; only ever called inside the settings lock. */
  apply?(ctx: RunContext): void | Promise<void>;
  /** Starts background work for the run stage (timers); synchronous. */
  run?(ctx: RunContext): void;
  /** The run is over: stop and drain (reverse order, not called when the run failed). */
  collect?(ctx: RunContext): void | Promise<void>;
  /** Puts back what apply changed and releases what it holds; always called once apply was
   * entered (reverse order, inside the lifecycle's one finally). Must not throw. */
  restore?(ctx: RunContext): void | Promise<void>;
  /** Files for the bundle folder, asked for once the run is over. */
  bundleFiles?(): BundleFile[];
}
