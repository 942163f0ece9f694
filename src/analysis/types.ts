// The analysis result types every other part (session, bundle, aggregate) builds on.
import type { Frame } from '../kernel/frame.js';

export type { Frame, FrameContext } from '../kernel/frame.js';

/** xrun: an XRUN header; hw_ptr_error: hw-pointer diagnostics; invalid_position: a driver's bad .pointer. */
export type EventKind = 'xrun' | 'hw_ptr_error' | 'invalid_position';

/** What the CPU was doing when the late period interrupt was taken. */
export type OffenderClass = 'kernel' | 'idle' | 'user' | 'none';

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
