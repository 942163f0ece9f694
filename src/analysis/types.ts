// The analysis result types every other part (session, bundle, aggregate) builds on.
import type { Frame } from '../kernel/frame.js';
import type { XrunBreakdown } from '../recorder/breakdown-types.js';

export type { Frame, FrameContext } from '../kernel/frame.js';

/** xrun: an XRUN header; hw_ptr_error: hw-pointer diagnostics; invalid_position: a driver's bad .pointer. */
export type EventKind = 'xrun' | 'hw_ptr_error' | 'invalid_position';

/**
 * What the CPU was doing when the late period interrupt was taken. `detector-only`: the XRUN
 * was noticed in an IRQ thread, a softirq thread or a task's own system call, so the stack is
 * the detector's and names no culprit (counted, never ranked).
 */
export type OffenderClass = 'kernel' | 'idle' | 'user' | 'none' | 'detector-only';

/** Where the code that noticed the XRUN ran. */
export type DetectionContext = 'hardirq' | 'irq-thread' | 'softirq' | 'process' | 'unknown';

/** A task as the log names it with the event. */
export interface DetectingTask {
  comm: string;
  pid: number;
}

/** How and by whom an XRUN was noticed (issue 17: stack-only attribution never names the victim). */
export interface Detection {
  context: DetectionContext;
  /**
   * The task the log prints with the event (ftrace `comm-pid`, a dump's `CPU: N PID: N Comm: …`).
   * In a hard interrupt this is the task that was interrupted, not a detector.
   */
  task?: DetectingTask;
  /** The frame that shows the context (`irq_forced_thread_fn`, `run_ksoftirqd`, `snd_pcm_delay` …). */
  via?: string;
  /** Read from the stack, from the ftrace flags column (no stack), or unknown. */
  evidence: 'stack' | 'flags' | 'none';
}

/** XRUNs whose stack is the detector's own, by detection context (the report's "N were detected in …"). */
export interface DetectorOnlyCount {
  context: DetectionContext;
  count: number;
  /** Detecting tasks by comm, most frequent first (at most a few). */
  tasks: string[];
}

export interface Offender {
  class: OffenderClass;
  /** kernel: the offending function; idle: the idle function; none: the process-context path if known. */
  function: string | null;
  module: string | null;
  /** Stable grouping key from normalised names (`_raw_spin_unlock_irq | __filemap_add_folio`), or the class. */
  signature: string;
  /** Why this class was chosen (for `--verbose` and bug reports). */
  reason?: string;
  /** Which rule chose the frame and which frames were skipped on the way (`--verbose`, JSON). */
  explanation?: OffenderExplanation;
}

/** How the offender decision was made, so a user can challenge it frame by frame. */
export interface OffenderExplanation {
  /** The rule that decided (the reason, in words). */
  rule: string;
  /** Where the interrupted context starts: registers line, last IRQ-entry frame, marker, or none. */
  boundary: string;
  /** The frame chosen, or null. */
  chosen: string | null;
  /** Frames before the chosen one (or all, when none was chosen), with the role that skipped them. */
  skipped: { function: string; role: string }[];
}

export interface XrunEvent {
  kind: EventKind;
  /** The `pcmCxDyp[:z]` token as printed, or null (3.19+ hw_ptr lines print only `stream=`). */
  pcm: string | null;
  /** 1-based line number of the header in its input. */
  line: number;
  /** Seconds since boot (printk timestamp or kmsg USEC), when the log has one. */
  time?: number;
  /** Input file name when several inputs were analysed. */
  source?: string;
  /** The header text as printed (prefixes stripped). */
  header: string;
  offender: Offender;
  /** The stack after the header, normalised; empty when none was printed (or dropped to bound memory). */
  frames: Frame[];
  /** Index into `frames` of the offender frame, when there is one. */
  offenderIndex?: number;
  /** Which context noticed the XRUN, and which task (absent on events built by older code). */
  detection?: Detection;
  /** The flight recorder's latency breakdown, when the input (a format 2 bundle) carried one. */
  breakdown?: XrunBreakdown;
}

export interface OffenderRank {
  function: string;
  module: string | null;
  /** The most frequent signature of this offender. */
  signature: string;
  count: number;
  /** count / all events (0..1). */
  share: number;
  /** Number of distinct signatures grouped under this offender. */
  signatures: number;
  /** Example header line numbers (first few). */
  lines: number[];
  /** Example sources for the lines, parallel to `lines`, when inputs were named. */
  sources?: string[];
}

export interface AnalysisSummary {
  events: number;
  byKind: Record<EventKind, number>;
  byClass: Record<OffenderClass, number>;
  /** Distinct kernel offenders. */
  offenders: number;
  lines: number;
  rulesVersion: string;
  /** Detector-only XRUNs by context, present when there are any. */
  detectorOnly?: DetectorOnlyCount[];
}

export interface AnalysisResult {
  events: XrunEvent[];
  offenders: OffenderRank[];
  summary: AnalysisSummary;
  warnings: string[];
}

/** An analysis whose events were handed on one by one (streamed): the ranking and counts. */
export interface StreamedAnalysis {
  offenders: OffenderRank[];
  summary: AnalysisSummary;
  warnings: string[];
}
