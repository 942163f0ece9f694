// The bundle: one versioned JSON document a session (or watch / analyze) writes and a
// kernel developer collects from many machines. These types ARE the format: plain data,
// no classes, no imports from analysis/ (a bundle must stay readable when the analyzer
// changes). Field-by-field documentation: docs/aggregate.md. Any change that is not a pure
// addition of an optional field bumps FORMAT_VERSION and adds a step to upgrade.ts.

/** The format version this build writes; readers accept 0..FORMAT_VERSION. */
export const FORMAT_VERSION = 1 as const;

/** What produced the bundle. */
export type BundleKind = 'session' | 'watch' | 'analyze' | 'try';
export const BUNDLE_KINDS: readonly BundleKind[] = ['session', 'watch', 'analyze', 'try'];

/** Kernel preemption model (from uname -v / config). */
export type PreemptModel = 'none' | 'voluntary' | 'full' | 'rt' | 'unknown';
export const PREEMPT_MODELS: readonly PreemptModel[] = [
  'none',
  'voluntary',
  'full',
  'rt',
  'unknown',
];

/** How kernel-side xrun information was captured. */
export type CaptureBackend = 'xrun_debug' | 'kprobe' | 'tracepoint' | 'none';
export const CAPTURE_BACKENDS: readonly CaptureBackend[] = [
  'xrun_debug',
  'kprobe',
  'tracepoint',
  'none',
];

/** Where the kernel log came from ('file' for analyze of a saved log). */
export type KernelLogSource = 'kmsg' | 'journalctl' | 'dmesg' | 'trace_pipe' | 'file' | 'none';
export const KERNEL_LOG_SOURCES: readonly KernelLogSource[] = [
  'kmsg',
  'journalctl',
  'dmesg',
  'trace_pipe',
  'file',
  'none',
];

/** Kernel event kinds, as in `analyze --json`. */
export type BundleEventKind = 'xrun' | 'hw_ptr_error' | 'invalid_position';
export const BUNDLE_EVENT_KINDS: readonly BundleEventKind[] = [
  'xrun',
  'hw_ptr_error',
  'invalid_position',
];

/** Offender classes: only 'kernel' is ranked as code to fix. */
export type BundleOffenderClass = 'kernel' | 'idle' | 'user' | 'none';
export const BUNDLE_OFFENDER_CLASSES: readonly BundleOffenderClass[] = [
  'kernel',
  'idle',
  'user',
  'none',
];

export interface BundleTool {
  name: 'xrunhunt';
  version: string;
}

export interface BundleCard {
  index: number;
  id: string;
  driver: string;
  name: string;
}

export interface BundleHost {
  /** `uname -r`, e.g. "6.1.0-28-amd64". */
  kernelRelease: string;
  /** `uname -v`, e.g. "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1 (2024-11-22)". */
  kernelVersion: string;
  arch: string;
  preempt: PreemptModel;
  /** CONFIG_HZ when known. */
  hz: number | null;
  /** Kernel config options that matter (SND_DEBUG, SND_PCM_XRUN_DEBUG, ...): true = y/m. */
  configFlags: Record<string, boolean>;
  cards: BundleCard[];
  cpus: number;
  memBytes: number;
  threadirqs: boolean;
}

export interface BundleParams {
  device: string;
  rateHz: number;
  channels: number;
  format: string;
  periodFrames: number;
  bufferFrames: number;
  /** 'SCHED_FIFO', 'SCHED_OTHER', ... */
  rtPolicy: string;
  rtPriority: number | null;
  /** xrun_debug mask applied, null when xrun_debug was unavailable. */
  mask: number | null;
  /** The phase plan as given, e.g. "idle:10s,write:30s". */
  phases: string;
  captureBackend: CaptureBackend;
}

export interface BundleThroughput {
  bytes: number;
  mbPerSec: number;
  ops?: number;
  opsPerSec?: number;
}

export interface BundlePhase {
  name: string;
  /** Load kind: 'idle', 'write', 'metadata', 'pagecache', 'fork', ... */
  kind: string;
  /** Milliseconds since session start. */
  startMs: number;
  endMs: number;
  throughput: BundleThroughput | null;
  xruns: number;
}

/** A userspace xrun (-EPIPE seen by the playback engine). */
export interface BundleXrun {
  /** Milliseconds since session start. */
  timeMs: number;
  monotonicNs?: number;
  /** How long the stream was stopped (recovery), null if unknown. */
  durationMs: number | null;
  phase: string | null;
  /** Index into `events` of the matched kernel event, null when unmatched. */
  kernelEventIndex: number | null;
}

export interface BundleKernelCapture {
  source: KernelLogSource;
  lostMessages: number;
}

export interface BundleEventOffender {
  class: BundleOffenderClass;
  function: string | null;
  module: string | null;
  signature: string | null;
}

/** A kernel event with its normalised stack (the input of re-signing). */
export interface BundleEvent {
  kind: BundleEventKind;
  /** e.g. "pcmC0D0p", null when the header did not say. */
  pcm: string | null;
  /** Kernel timestamp in seconds, null when the log had none. */
  time: number | null;
  phase: string | null;
  offender: BundleEventOffender;
  /** Normalised frames, innermost first: "func" or "func [module]", offsets stripped. */
  frames: string[];
}

export interface BundleOffenderRank {
  function: string | null;
  module: string | null;
  signature: string;
  count: number;
  /** count / all kernel events, 0..1. */
  share: number;
}

/** Latency summary in microseconds. */
export interface LatencySummary {
  min: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  count: number;
}

export interface BundleHistograms {
  /** Headroom: buffer fill left when the writer woke, in µs. */
  headroomUs: LatencySummary;
  /** Duration of one write call, in µs. */
  writeUs: LatencySummary;
}

/** One arm's xruns of a `try` comparison: count over minutes. */
export interface BundleTryArm {
  count: number;
  minutes: number;
}

/** One rate comparison of a `try` run: B's xrun rate over A's, exact 95 % interval. */
export interface BundleTryRate {
  a: BundleTryArm;
  b: BundleTryArm;
  /** null: no xrun in either arm. */
  ratio: number | null;
  low: number;
  /** null: unbounded (A had no xrun). */
  high: number | null;
  p: number;
  significant: boolean;
}

/** What a bundle of kind `try` adds: the knobs changed in B and the A/B comparison. */
export interface BundleTry {
  knobs: { spec: string; what: string; from: string; to: string }[];
  rounds: number;
  phases: (BundleTryRate & { name: string })[];
  total: BundleTryRate | null;
  topOffender: { name: string; a: number; b: number; rate: BundleTryRate } | null;
  verdict: string;
}

/** Bundle format version 1. */
export interface Bundle {
  formatVersion: typeof FORMAT_VERSION;
  tool: BundleTool;
  kind: BundleKind;
  /** ISO 8601 timestamp. */
  createdAt: string;
  /** Anonymous random per-install id (see machine-id.ts); never derived from hardware. */
  machineId: string;
  /** Whether hostnames, user names, home paths and addresses were replaced. */
  scrubbed: boolean;
  host: BundleHost;
  /** Session parameters; null for bundles made by `analyze` from a saved log. */
  params: BundleParams | null;
  durationMs: number;
  /** Time audio actually played (the denominator of incidents per machine-hour). */
  playbackMs: number;
  phases: BundlePhase[];
  xruns: BundleXrun[];
  kernelCapture: BundleKernelCapture;
  events: BundleEvent[];
  offenders: BundleOffenderRank[];
  histograms: BundleHistograms | null;
  /** Version of the signature rules that produced offender signatures. */
  rulesVersion: string;
  warnings: string[];
  /** Only in bundles of kind `try` (an optional addition to version 1). */
  try?: BundleTry;
}
