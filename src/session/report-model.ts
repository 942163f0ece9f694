// The session report as data: what `session --json` prints, what the text/markdown report
// renders, and what the 'report' session event carries. Plain JSON-serialisable values.
import type { RecorderExplanation } from '../recorder/explain-windows.js';
import type { PeriodChoice } from './period-choice.js';
import type {
  CaptureSourceName,
  HeadroomSummary,
  SessionHostSummary,
  SessionKernelEvent,
  SessionParams,
  SessionThroughput,
} from './events.js';

/** A userspace xrun with its phase and the kernel event it was matched to. */
export interface ReportXrun {
  index: number;
  timeMs: number;
  monotonicNs: number;
  durationMs: number | null;
  phase: string | null;
  /** Index into `events` of the matched kernel XRUN, null when none matched. */
  kernelEventIndex: number | null;
}

/** One load phase with its xrun count and measured throughput. */
export interface ReportPhase {
  name: string;
  kind: string;
  startMs: number;
  endMs: number;
  xruns: number;
  xrunsPerMin: number;
  kernelEvents: number;
  throughput: SessionThroughput | null;
  headroom: HeadroomSummary | null;
}

/** A ranked offender (class kernel only), as analyze ranks them. */
export interface ReportOffender {
  function: string | null;
  module: string | null;
  signature: string;
  count: number;
  /** count / all kernel events of the session (as `analyze` ranks), 0..1. */
  share: number;
  /** Phases it was seen in, with counts. */
  phases: Record<string, number>;
}

/** Share of kernel events per offender class (0..1 each). */
export interface ClassShares {
  kernel: number;
  idle: number;
  user: number;
  none: number;
}

/** What correlation found (see src/analysis/correlate.ts). */
export interface ReportCorrelation {
  /** How the clocks were aligned: 'marker' (measured), 'assumed' (equal), 'none' (no capture). */
  clockAlignment: 'marker' | 'assumed' | 'none';
  /** CLOCK_MONOTONIC minus the kernel printk clock, ns (null: unknown). */
  offsetNs: number | null;
  /** Matching window half-width in ms. */
  windowMs: number;
  matched: number;
  /** Userspace xruns with no kernel XRUN for our PCM: the application was late. */
  unmatchedXruns: number;
  /** Kernel events of our PCM that no userspace xrun explains. */
  unmatchedKernelEvents: number;
  /** Kernel events on other streams. */
  otherStreamEvents: number;
  /** matched / userspace xruns, 0..1 (null when there were none). */
  matchRatio: number | null;
}

/** The idle phases taken together: what the machine produces with no load. */
export interface LoadBaseline {
  phases: string[];
  ms: number;
  xruns: number;
  xrunsPerMin: number;
  /** Kernel events whose offender is kernel code, in the idle phases. */
  kernelCodeEvents: number;
}

/** One load kind against the idle baseline. */
export interface LoadEffectPhase {
  kind: string;
  phases: string[];
  ms: number;
  xruns: number;
  xrunsPerMin: number;
  /** xrunsPerMin minus the idle rate. */
  excessXrunsPerMin: number;
  /** xrunsPerMin / idle rate; null when idle had none. */
  ratio: number | null;
  /** One-sided exact Poisson p-value that the load's rate is not above idle's. */
  pValue: number;
  significant: boolean;
}

/** An offender whose rate under one load kind is significantly above its idle rate. */
export interface LoadEffectOffender {
  signature: string;
  function: string | null;
  module: string | null;
  /** The load kind where it gained most. */
  kind: string;
  idleCount: number;
  idlePerMin: number;
  loadCount: number;
  loadPerMin: number;
  excessPerMin: number;
  ratio: number | null;
  pValue: number;
}

/** What the load adds over idle (null in the report when no idle phase ran). */
export interface LoadEffect {
  baseline: LoadBaseline;
  phases: LoadEffectPhase[];
  /** Enriched under load, most added events per minute first. */
  offenders: LoadEffectOffender[];
}

export interface SessionReport {
  /** Plain-language conclusion lines, most important first. */
  conclusion: string[];
  /** What to try next, concrete. */
  suggestions: string[];
  xruns: ReportXrun[];
  /** Xruns that followed a deliberate --inject-stall (self-test). */
  injectedXruns: number;
  /** The flight recorder (`--recorder`): on or off and why, what it recorded. */
  recorder?: RecorderStatus;
  kernelCapture: {
    source: CaptureSourceName;
    lostMessages: number;
    /** The PCM whose xrun_debug was set, or null with the reason in `limitations`. */
    pcm: string | null;
    mask: number | null;
  };
  events: SessionKernelEvent[];
  offenders: ReportOffender[];
  /** How `--period auto` chose the period (null: the period was given). */
  periodChoice: PeriodChoice | null;
  /** What each load kind adds over the idle phases (null: no idle phase ran). */
  loadEffect: LoadEffect | null;
  classShares: ClassShares;
  phases: ReportPhase[];
  correlation: ReportCorrelation;
  params: SessionParams;
  host: SessionHostSummary;
  /** What this session could not see and why (no xrun_debug, no kernel PCM, ...). */
  limitations: string[];
  warnings: string[];
  durationMs: number;
  /** Bundle folder (null: none written). */
  bundle: string | null;
  /** Files of the bundle folder. */
  files: {
    bundle: string | null;
    events: string | null;
    kernelLog: string | null;
    report: string | null;
  };
  exitCode: number;
}

/** The `recorder` object of a report (`--json`). */
export interface RecorderStatus {
  enabled: boolean;
  /** Why it is on or off, in words. */
  reason: string;
  /** `system:event` of every event recorded. */
  events: string[];
  /** Events the kernel lacks, with the reason. */
  skipped: string[];
  lines: number;
  /** Events the ring buffer dropped. */
  lost: number;
  hits: number;
  /** The recorder probe's hits by kprobe_profile (what the kernel saw; null: unknown). */
  probeHits: number | null;
  /** Events the ring buffer reported lost or dropped at close (overrun + commit overrun + dropped). */
  ringLost: number | null;
  windowsKept: number;
  windowsTruncated: number;
  bytes: number;
  /**
   * What was still unread when recording stopped at the end and was read then (the reader's
   * backlog): lines, and the hits among them. Absent in reports of older versions.
   */
  drained?: { lines: number; hits: number; emptied: boolean | null };
  /** How far the reader was behind the kernel, seconds: the most, and just before the end. */
  readerLag?: { maxSeconds: number; atStopSeconds: number | null };
  /** The per-XRUN latency breakdowns of the kept windows (absent when off or not asked). */
  breakdown?: RecorderExplanation;
}
