// What an HTML report shows, independent of where it came from: a session report, a
// bundle, an analysis of a pasted log or a fleet ranking are each turned into these plain
// values by a small adapter (from-*.ts), and the renderers draw only these.
import type { BreakdownView } from './breakdown-section.js';

/** One load phase on the timeline and in the throughput chart. */
export interface PhaseView {
  name: string;
  kind: string;
  startMs: number;
  endMs: number;
  xruns: number;
  /** MB/s of the load (10^6 bytes/s); null when the phase had no load or none was measured. */
  mbPerSec: number | null;
  /** Operations per second for loads that count operations (files, fsyncs, forks). */
  opsPerSec: number | null;
}

/** Headroom as percentiles (what sessions and bundles record), µs. */
export interface HeadroomRow {
  label: string;
  us: number;
}

/** One kernel event with its normalised stack, for the collapsible event list. */
export interface EventView {
  kind: string;
  pcm: string | null;
  /** Kernel timestamp, seconds (null: the log had none). */
  kernelTime: number | null;
  /** Placed on the session clock, ms (null: unknown). */
  sessionMs: number | null;
  /** 1-based line of the header in the analysed input (analyze only). */
  line: number | null;
  /** Input file the event came from (analyze of several files), null otherwise. */
  source: string | null;
  /** Index into `frames` of the offender's frame (highlighted), null when none. */
  offenderFrame: number | null;
  phase: string | null;
  offenderClass: string;
  offenderFunction: string | null;
  offenderModule: string | null;
  signature: string | null;
  /** Normalised frames, innermost first. */
  frames: string[];
}

/** A ranked offender. */
export interface OffenderView {
  function: string | null;
  module: string | null;
  signature: string;
  count: number;
  /** 0..1 of kernel-class events. */
  share: number;
}

/** Everything one run (a session, a bundle, an analysed log) contributes to a report. */
export interface RunView {
  /** "run A: 6.1.0-28-amd64 voluntary" etc. */
  label: string;
  /** Key facts as label/value pairs (kernel, preemption, device, period ...). */
  facts: [string, string][];
  conclusion: string[];
  suggestions: string[];
  limitations: string[];
  warnings: string[];
  /** Session length in ms; null when the input has no session clock (a pasted log). */
  durationMs: number | null;
  phases: PhaseView[];
  /** Userspace xrun times, ms since session start. */
  xrunsMs: number[];
  /** Period length in µs, for the headroom chart's reference line (null: unknown). */
  periodUs: number | null;
  headroom: HeadroomRow[];
  /** Wake-ups the headroom was measured over (0: none measured). */
  headroomCount: number;
  /** Smallest headroom of each ≈1 s of playback (µs), for the histogram (empty: none recorded). */
  headroomSamplesUs: number[];
  /** Buffer length in µs (the histogram's scale); null when unknown. */
  bufferUs: number | null;
  /** Headroom per load phase (sessions record it per phase). */
  phaseHeadroom: { phase: string; minUs: number; p50Us: number; p99Us: number }[];
  offenders: OffenderView[];
  /** Share of events per offender class (kernel / idle / user / none), counts. */
  classCounts: Record<string, number>;
  events: EventView[];
  /** All events of the run when `events` lists only the first of them (analyze of big logs). */
  eventsTotal?: number;
  /** A log's event times for its timeline, thinned to a bounded sample (analyze only). */
  logTimeline?: LogTimelineSample;
  /** The flight recorder's latency breakdowns (session --recorder, a format 2 bundle). */
  breakdown?: BreakdownView;
}

/** Kernel-clock times of a log's events: every `every`-th of `timed` events with a time. */
export interface LogTimelineSample {
  /** Seconds since boot, in log order. */
  timesS: number[];
  every: number;
  timed: number;
  /** All events came from one input (separate boots' clocks do not share a timeline). */
  oneInput: boolean;
}

/** A fleet ranking row (aggregate). */
export interface FleetRowView {
  signature: string;
  function: string | null;
  module: string | null;
  incidents: number;
  machines: number;
  /** Share of the group's kernel-class incidents, 0..1. */
  share: number;
  kernels: string[];
  preempt: string[];
  drivers: string[];
  loads: string[];
  /** Incidents per machine-hour of playback (null: unknown). */
  perMachineHour: number | null;
  exampleStack: string[];
}

/** One ranking group (all bundles, or one kernel / driver / ... with --by). */
export interface FleetGroupView {
  /** Group key ("6.1.0-28-amd64"); null when not grouped. */
  key: string | null;
  bundles: number;
  machines: number;
  playbackHours: number;
  classes: Record<string, number>;
  rows: FleetRowView[];
  /** Rows left out by --top. */
  more: number;
}

export interface FleetView {
  /** What the groups are keyed by ("kernel", "driver", ...), null when not grouped. */
  by: string | null;
  facts: [string, string][];
  groups: FleetGroupView[];
  warnings: string[];
}

/** One row of a `try` report: a phase (or "all") with both arms' rates and their ratio. */
export interface TryRowView {
  name: string;
  aPerMin: number;
  bPerMin: number;
  aCount: number;
  bCount: number;
  /** null: no xrun in either arm; Infinity: none in A. */
  ratio: number | null;
  low: number;
  /** Infinity: unbounded. */
  high: number;
  significant: boolean;
}

/** What a `try` report shows: the knobs, the A/B rows, the top offender and the verdict. */
export interface TryView {
  knobs: { spec: string; what: string; from: string; to: string }[];
  rounds: number;
  rows: TryRowView[];
  topOffender: { name: string; a: number; b: number } | null;
  verdict: string;
}

/** The whole document. */
export type ReportView =
  | { kind: 'try'; title: string; generatedAt: string; try: TryView }
  | { kind: 'session'; title: string; generatedAt: string; run: RunView }
  | { kind: 'analyze'; title: string; generatedAt: string; run: RunView }
  | { kind: 'compare'; title: string; generatedAt: string; runs: [RunView, RunView] }
  | { kind: 'aggregate'; title: string; generatedAt: string; fleet: FleetView };
