// xrun_debug as a probe of the lifecycle: at apply it takes the guard on the streams the run
// watches (known only then: a session learns its PCM when playback opened) unless the run
// does not want it (--mask 0, the kprobe backend); at restore it puts the originals back
// and says so. Another live xrunhunt on the
// same files is fatal (the guard throws); a failing write is a warning and a limitation.
import type { PcmStreamInfo } from '../proc/index.js';
import type { RunContext, RunProbe } from './probe.js';
import {
  guardedPcms,
  restoreXrunDebugReporting,
  takeXrunDebug,
  type XrunDebugGuard,
} from './xrun-debug-guard.js';

export interface XrunDebugProbeOptions {
  mask: number;
  /** The streams to set, asked for at apply (those without xrun_debug are skipped). */
  streams: () => readonly PcmStreamInfo[];
  /** Whether xrun_debug is wanted now (not when the kprobe captures the stacks). */
  wanted: () => boolean;
  journalDir: string;
  toolVersion: string;
  /** The command the journal names as owner. */
  command: () => string;
}

export interface XrunDebugProbe extends RunProbe {
  /** The guard while xrun_debug is set (null: not set). */
  readonly guard: XrunDebugGuard | null;
  /** Stack dumps on/off from the dashboard; false when xrun_debug is not held. */
  setStackDumps(on: boolean): boolean;
  /** What the capture-status event and the report say about xrun_debug. */
  status(): { mask: number | null; pcm: string | null; stackDumps: boolean };
}

/** Creates the probe (nothing is touched before apply). */
export function createXrunDebugProbe(o: XrunDebugProbeOptions): XrunDebugProbe {
  let guard: XrunDebugGuard | null = null;
  let restored = false;
  return {
    name: 'xrun_debug',
    get guard() {
      return restored ? null : guard;
    },
    apply(ctx: RunContext) {
      const streams = o.streams().filter((s) => s.xrunDebugPath !== undefined);
      if (o.mask === 0 || streams.length === 0 || !o.wanted()) return;
      const took = takeXrunDebug(streams, o.mask, {
        journalDir: o.journalDir,
        toolVersion: o.toolVersion,
        command: o.command(),
      });
      const names = streams.map((s) => s.pcm).join(', ');
      if (!took.ok) {
        ctx.notes.warn(`could not set xrun_debug on ${names}: ${took.reason}`);
        ctx.notes.limitations.push(
          `xrun_debug could not be set on ${names}; kernel dumps may be missing.`,
        );
        return;
      }
      guard = took.guard;
      ctx.notes.note(
        `xrun_debug set to ${o.mask} on ${guard.changes.map((c) => `${c.pcm} (was ${String(c.from)})`).join(', ')}`,
      );
    },
    restore(ctx: RunContext) {
      if (!guard || restored) return;
      restored = true;
      restoreXrunDebugReporting(guard, ctx.notes);
    },
    setStackDumps(on) {
      if (!guard || restored) return false;
      guard.setStackDumps(on);
      return true;
    },
    status() {
      // After restore the report still names what was set during the run.
      return guard
        ? { mask: guard.mask, pcm: guardedPcms(guard), stackDumps: (guard.mask & 2) !== 0 }
        : { mask: null, pcm: null, stackDumps: false };
    },
  };
}
