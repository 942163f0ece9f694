// The session's event union: everything a running `xrunhunt session` tells the outside
// world (the NDJSON event log, the live dashboard, `--json` streaming) is one of these
// plain, JSON-serialisable records. The dashboard builds on this file only: it never
// touches /proc, ALSA or loads; it calls the SessionControl methods instead.
//
// Every event carries `timeMs`: milliseconds since the session started (CLOCK_MONOTONIC).
import type { WakeupMode } from '../playback/types.js';
import type { CaptureSourceName } from '../kernel/source-contract.js';
import type { Detection } from '../analysis/types.js';
import type { SessionReport } from './report-model.js';
import { EventBus } from '../run/event-bus.js';

export type { CaptureSourceName };

/** Session parameters as resolved from the command line (units in the names). */
export interface SessionParams {
  device: string;
  rateHz: number;
  periodFrames: number;
  periods: number;
  /** The phase plan as given, e.g. "idle:10s,write:20s,metadata:20s". */
  phasePlan: string;
  /** Total run time cap in ms (null: the sum of the phases). */
  durationMs: number | null;
  /** xrun_debug mask requested (1 = header, 3 = header + stack, ...). */
  mask: number;
  /** Capture requested: 'auto', 'xrun_debug', 'kprobe', 'none'. */
  capture: string;
  /** Kernel PCM to set xrun_debug on when given (`--pcm pcmC0D0p`): for sound-server devices. */
  pcm?: string | null;
  loadDir: string;
  outDir: string | null;
  maxXruns: number | null;
  /** Stop once this many kernel XRUNs of the session's PCM were captured (`--until-xruns`; absent in older logs). */
  untilXruns?: number | null;
  rtPriority: number | null;
  cpu: number | null;
  injectStall: boolean;
  scrub: boolean;
  /** Who wakes the player's writer (`--wakeup`; absent = period, the period interrupt). */
  wakeup?: WakeupMode;
}

/** Host facts shown at the start (a subset of the bundle's host block). */
export interface SessionHostSummary {
  kernelRelease: string;
  kernelVersion: string;
  arch: string;
  preempt: string;
  cpus: number;
  threadirqs: boolean;
  /** Whether the kernel offers /proc/asound/.../xrun_debug at all. */
  xrunDebugAvailable: boolean;
}

/** A preflight check's outcome, as doctor reports it. */
export interface SessionCheck {
  id: string;
  status: 'ok' | 'warn' | 'fail' | 'info';
  message: string;
}

/** Load throughput of one phase (or so far). */
export interface SessionThroughput {
  bytes: number;
  mbPerSec: number;
  ops?: number;
  opsPerSec?: number;
}

/** Headroom (buffer fill left when the writer woke), microseconds. */
export interface HeadroomSummary {
  p50Us: number;
  p99Us: number;
  minUs: number;
  count: number;
}

/** The offender of one kernel event, as the analyzer classifies it. */
export interface SessionEventOffender {
  /** 'detector-only': the stack is the detecting task's own (analysis/types.ts OffenderClass). */
  class: 'kernel' | 'idle' | 'user' | 'none' | 'detector-only';
  function: string | null;
  module: string | null;
  signature: string | null;
}

/** A kernel event (an XRUN dump and friends) as the analyzer reports it. */
export interface SessionKernelEvent {
  kind: 'xrun' | 'hw_ptr_error' | 'invalid_position';
  /** e.g. "pcmC0D0p"; null when the header did not say. */
  pcm: string | null;
  /** Kernel timestamp (printk clock) in seconds; null when the log had none. */
  time: number | null;
  /** The kernel timestamp converted to ms since session start (null: no time or no offset). */
  sessionMs: number | null;
  /** Load phase the event fell into. */
  phase: string | null;
  offender: SessionEventOffender;
  /** Normalised frames, innermost first ("func" or "func [module]"). */
  frames: string[];
  /** How and by whom the XRUN was noticed, when the analyzer could tell (bundle format 2). */
  detection?: Detection;
}

export type SessionEvent =
  | {
      type: 'session-start';
      timeMs: number;
      params: SessionParams;
      host: SessionHostSummary;
      /** ISO 8601 wall-clock start. */
      startedAt: string;
      /** Where the NDJSON event log is written (null: not written). */
      logPath: string | null;
    }
  | { type: 'preflight'; timeMs: number; checks: SessionCheck[] }
  | {
      type: 'phase-start';
      timeMs: number;
      phase: string;
      /** Load kind: idle, write, metadata, ... */
      kind: string;
      index: number;
      total: number;
      durationMs: number;
    }
  | {
      type: 'phase-end';
      timeMs: number;
      phase: string;
      index: number;
      xruns: number;
      throughput: SessionThroughput | null;
      /** True when the phase was cut short (nextPhase(), stop(), max xruns). */
      cut: boolean;
    }
  | {
      type: 'playback-started';
      timeMs: number;
      device: string;
      granted: { rateHz: number; periodFrames: number; bufferFrames: number };
      /** Scheduling policy the writer got, e.g. "SCHED_FIFO 80" or "SCHED_OTHER". */
      policy: string;
      /** Kernel PCM behind the device ("pcmC0D0p"), null when there is none (plug:jack, null). */
      hwPcm: string | null;
    }
  | {
      type: 'xrun';
      timeMs: number;
      /** 0-based index among this session's userspace xruns. */
      index: number;
      /** CLOCK_MONOTONIC at detection, ns (as a number; exact below ~104 days of uptime). */
      monotonicNs: number;
      /** How long the stream was stopped, ms (null: unknown). */
      durationMs: number | null;
      phase: string | null;
    }
  | {
      type: 'kernel-event';
      timeMs: number;
      event: SessionKernelEvent;
      /** Index of the userspace xrun this kernel event was matched to, when known yet. */
      matchedXrun: number | null;
    }
  | {
      type: 'stats';
      timeMs: number;
      elapsedMs: number;
      xruns: number;
      kernelEvents: number;
      headroom: HeadroomSummary | null;
      /** Smallest headroom of the last interval (≈1 s), µs; the raw sample behind `headroom`. */
      intervalHeadroomUs?: number | null;
      phase: string | null;
      load: SessionThroughput | null;
      loadPaused: boolean;
    }
  | {
      type: 'capture-status';
      timeMs: number;
      source: CaptureSourceName;
      lostMessages: number;
      /** xrun_debug mask in force on the PCM (null: not set / not available). */
      mask: number | null;
      /** The /proc PCM whose xrun_debug was set, e.g. "card0/pcm0p". */
      pcm: string | null;
      stackDumps: boolean;
    }
  | { type: 'warning'; timeMs: number; message: string }
  | { type: 'report'; timeMs: number; report: SessionReport }
  | { type: 'session-end'; timeMs: number; exitCode: number };

export type SessionEventType = SessionEvent['type'];

/** The event of one type, e.g. `EventOf<'xrun'>`. */
export type EventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>;

/** What the dashboard (or a script) may ask a running session to do. */
export interface SessionControl {
  /** Ends the session early: stops load and playback, restores, analyses, reports. */
  stop(): void;
  /** Pauses the current load generator (audio keeps playing). */
  pauseLoad(): void;
  resumeLoad(): void;
  /** Cuts the current phase short and starts the next one. */
  nextPhase(): void;
  /** Turns xrun_debug stack dumps on (mask | 2) or off (mask & ~2) on the session's PCM. */
  setStackDumps(on: boolean): void;
}

/**
 * Fan-out for session events: synchronous listeners (the event log, the dashboard) and
 * async iteration (`for await (const e of bus)`), which ends after 'session-end'. The
 * catch-up history is bounded (src/run/event-bus.ts): the start events are always kept.
 */
export class SessionEventBus extends EventBus<SessionEvent> {
  constructor(historyCap?: number) {
    super({
      terminal: 'session-end',
      headerTypes: ['session-start', 'preflight', 'playback-started'],
      ...(historyCap === undefined ? {} : { historyCap }),
    });
  }
}

/** A running session as seen from outside: its events, its controls, its outcome. */
export interface SessionHandle {
  events: SessionEventBus;
  control: SessionControl;
  /** Resolves with the exit code (0 clean, 2 xruns / threshold) once everything is restored. */
  done: Promise<number>;
}
