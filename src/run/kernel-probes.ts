// The kernel side of a run, as session and watch both register it: the kernel capture and
// xrun_debug on the run's streams — set unless --mask 0 or the kprobe is the capture, also
// with --capture none (the dumps then stay in the kernel log for a later `analyze`) — with
// the capture-status event that describes them and the dashboard's stack-dump toggle.
import type { CaptureBackend } from '../bundle/index.js';
import type { PcmStreamInfo } from '../proc/index.js';
import type { SessionEvent } from '../session/events.js';
import {
  createKernelCapture,
  type CapturedKernelEvent,
  type KernelCapture,
  type SelectCapture,
} from './kernel-capture.js';
import { createXrunDebugProbe, type XrunDebugProbe } from './xrun-debug-probe.js';
import { errorMessage } from '../errors.js';

export interface KernelProbesOptions {
  /** The command running ('session', 'watch'): journals are labelled with it. */
  command: string;
  capture: string;
  mask: number;
  /** Whether any stream of the run has xrun_debug (else auto prefers the kprobe). */
  xrunDebugAvailable: boolean;
  journalDir: string;
  toolVersion: string;
  select: SelectCapture;
  onEvents: (events: CapturedKernelEvent[]) => void;
  /** The streams to set xrun_debug on, asked for when it is applied. */
  streams: () => readonly PcmStreamInfo[];
  /** The arguments that say which streams, for the xrun_debug journal ("--device hw:0"). */
  guardArgs: () => string;
  emit: (e: SessionEvent) => void;
  elapsed: () => number;
  warn: (message: string) => void;
}

export interface KernelProbes {
  capture: KernelCapture;
  xrunDebug: XrunDebugProbe;
  /** Emits the capture-status event (source, lost messages, xrun_debug in force). */
  emitStatus(): void;
  /** Stack dumps on/off (the dashboard's key): a warning when xrun_debug refuses. */
  setStackDumps(on: boolean): void;
  /** The backend that produced the kernel events, as bundles record it. */
  backend(): CaptureBackend;
}

/** Creates the capture and xrun_debug probes of one run (register them in this order). */
export function createKernelProbes(o: KernelProbesOptions): KernelProbes {
  const capture = createKernelCapture({
    capture: o.capture,
    mask: o.mask,
    context: () => ({
      xrunDebugAvailable: o.xrunDebugAvailable,
      journalDir: o.journalDir,
      toolVersion: o.toolVersion,
      command: `${o.command} --capture ${o.capture}`,
    }),
    select: o.select,
    onEvents: o.onEvents,
  });
  const xrunDebug = createXrunDebugProbe({
    mask: o.mask,
    streams: o.streams,
    // --mask decides what the kernel prints, --capture what xrunhunt reads; the kprobe
    // replaces xrun_debug (it sees every XRUN stack without it).
    wanted: () => !capture.kprobe,
    journalDir: o.journalDir,
    toolVersion: o.toolVersion,
    command: () => `${o.command} ${o.guardArgs()}`,
  });
  const emitStatus = (): void =>
    o.emit({
      type: 'capture-status',
      timeMs: o.elapsed(),
      source: capture.sourceName,
      lostMessages: capture.lostMessages,
      ...xrunDebug.status(),
    });
  return {
    capture,
    xrunDebug,
    emitStatus,
    backend: () =>
      xrunDebug.status().mask !== null ? 'xrun_debug' : capture.kprobe ? 'kprobe' : 'none',
    setStackDumps(on) {
      try {
        if (xrunDebug.setStackDumps(on)) emitStatus();
      } catch (err) {
        o.warn(`could not change xrun_debug: ${errorMessage(err)}`);
      }
    },
  };
}
