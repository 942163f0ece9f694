// The dashboard's view model: a pure reducer from session events to what the panels show.
// No Ink, no clock, no IO: the same events always give the same state, so every panel can
// be tested from a list of events.
import type {
  CaptureSourceName,
  HeadroomSummary,
  SessionCheck,
  SessionEvent,
  SessionKernelEvent,
  SessionThroughput,
} from '../session/events.js';
import { toBundleV1Class } from '../analysis/bundle-class.js';

/** Width of one sparkline bucket: xruns are counted per second of session time. */
export const XRUN_BUCKET_MS = 1000;
/** Per-second buckets kept (one hour); older ones are folded into `xrunsBeforeWindow`. */
export const MAX_XRUN_BUCKETS = 3600;
/** Headroom samples kept for the histogram (one per stats event, about one a second: 10 min). */
export const MAX_HEADROOM_SAMPLES = 600;
/** Warnings kept for the status line. */
export const MAX_WARNINGS = 20;
/** Window of the "recent" xrun rate, ms (one minute, the unit the rate is shown in). */
export const RATE_WINDOW_MS = 60_000;

export interface StreamView {
  device: string;
  rateHz: number;
  periodFrames: number;
  bufferFrames: number;
  /** Scheduling policy of the writer ("SCHED_FIFO 80"); null until playback started. */
  policy: string | null;
  /** Kernel PCM behind the device ("pcmC0D0p"), null for plug:jack / null. */
  hwPcm: string | null;
  /** True once the device granted the parameters (before that they are the requested ones). */
  granted: boolean;
}

export interface PhaseState {
  name: string;
  kind: string;
  index: number;
  total: number;
  startMs: number;
  durationMs: number;
}

export interface FinishedPhase {
  name: string;
  kind: string;
  xruns: number;
  throughput: SessionThroughput | null;
  cut: boolean;
}

export interface OffenderTally {
  signature: string;
  function: string | null;
  module: string | null;
  count: number;
}

export interface CaptureState {
  source: CaptureSourceName;
  lostMessages: number;
  mask: number | null;
  pcm: string | null;
  stackDumps: boolean;
}

export interface DashboardState {
  /** 'starting' until playback runs, 'stopping' after q, 'ended' after session-end. */
  status: 'starting' | 'running' | 'stopping' | 'ended';
  stream: StreamView | null;
  host: { kernelRelease: string; preempt: string; xrunDebugAvailable: boolean } | null;
  phasePlan: string | null;
  /** Session time of the newest event, ms. */
  nowMs: number;
  xruns: number;
  /** Xrun counts per XRUN_BUCKET_MS of session time; index 0 = first bucket kept. */
  xrunBuckets: number[];
  /** Session time (ms) of bucket 0 (moves forward when old buckets are dropped). */
  bucketOriginMs: number;
  /** Xrun times of the last RATE_WINDOW_MS, for the recent rate. */
  recentXrunsMs: number[];
  kernelEvents: number;
  /** Kernel events per offender class. */
  classCounts: Record<'kernel' | 'idle' | 'user' | 'none', number>;
  headroom: HeadroomSummary | null;
  /** Smallest headroom of each ≈1 s interval (µs), oldest first: the histogram's samples. */
  headroomMinHistory: number[];
  phase: PhaseState | null;
  phases: FinishedPhase[];
  load: SessionThroughput | null;
  loadPaused: boolean;
  /** Kernel-class offenders, most frequent first (ties: first seen first). */
  offenders: OffenderTally[];
  latestEvent: SessionKernelEvent | null;
  latestEventMatchedXrun: number | null;
  capture: CaptureState | null;
  checks: SessionCheck[];
  warnings: string[];
  conclusion: string[];
  exitCode: number | null;
}

/** The state before any event arrived. */
export function initialDashboardState(): DashboardState {
  return {
    status: 'starting',
    stream: null,
    host: null,
    phasePlan: null,
    nowMs: 0,
    xruns: 0,
    xrunBuckets: [],
    bucketOriginMs: 0,
    recentXrunsMs: [],
    kernelEvents: 0,
    classCounts: { kernel: 0, idle: 0, user: 0, none: 0 },
    headroom: null,
    headroomMinHistory: [],
    phase: null,
    phases: [],
    load: null,
    loadPaused: false,
    offenders: [],
    latestEvent: null,
    latestEventMatchedXrun: null,
    capture: null,
    checks: [],
    warnings: [],
    conclusion: [],
    exitCode: null,
  };
}

/** Adds one xrun at `timeMs` to the per-second buckets, dropping the oldest past the cap. */
function bucketXrun(
  state: DashboardState,
  timeMs: number,
): Pick<DashboardState, 'xrunBuckets' | 'bucketOriginMs'> {
  const buckets = extendBuckets(state.xrunBuckets, state.bucketOriginMs, timeMs);
  const i = Math.floor((timeMs - buckets.originMs) / XRUN_BUCKET_MS);
  if (i >= 0) buckets.counts[i] = (buckets.counts[i] ?? 0) + 1;
  return { xrunBuckets: buckets.counts, bucketOriginMs: buckets.originMs };
}

/** Grows the bucket array so it covers `timeMs` (zero-filled), keeping at most the cap. */
function extendBuckets(
  counts: readonly number[],
  originMs: number,
  timeMs: number,
): { counts: number[]; originMs: number } {
  const need = Math.floor((timeMs - originMs) / XRUN_BUCKET_MS) + 1;
  const out = [...counts];
  while (out.length < need) out.push(0);
  let origin = originMs;
  if (out.length > MAX_XRUN_BUCKETS) {
    const drop = out.length - MAX_XRUN_BUCKETS;
    out.splice(0, drop);
    origin += drop * XRUN_BUCKET_MS;
  }
  return { counts: out, originMs: origin };
}

function tallyOffender(list: readonly OffenderTally[], e: SessionKernelEvent): OffenderTally[] {
  if (e.offender.class !== 'kernel') return [...list];
  const signature = e.offender.signature ?? e.offender.function ?? '?';
  const found = list.find((o) => o.signature === signature);
  const next = found
    ? list.map((o) => (o === found ? { ...o, count: o.count + 1 } : o))
    : [...list, { signature, function: e.offender.function, module: e.offender.module, count: 1 }];
  // Stable sort: equal counts keep first-seen order, so the list does not flicker.
  return next
    .map((o, i) => ({ o, i }))
    .sort((a, b) => b.o.count - a.o.count || a.i - b.i)
    .map(({ o }) => o);
}

/** Applies one session event; returns a new state (the input is never changed). */
export function reduceDashboard(state: DashboardState, event: SessionEvent): DashboardState {
  const s: DashboardState = { ...state, nowMs: Math.max(state.nowMs, event.timeMs) };
  switch (event.type) {
    case 'session-start': {
      const p = event.params;
      return {
        ...s,
        stream: {
          device: p.device,
          rateHz: p.rateHz,
          periodFrames: p.periodFrames,
          bufferFrames: p.periodFrames * p.periods,
          policy: null,
          hwPcm: null,
          granted: false,
        },
        host: {
          kernelRelease: event.host.kernelRelease,
          preempt: event.host.preempt,
          xrunDebugAvailable: event.host.xrunDebugAvailable,
        },
        phasePlan: p.phasePlan,
      };
    }
    case 'preflight':
      return { ...s, checks: [...event.checks] };
    case 'playback-started':
      return {
        ...s,
        status: s.status === 'starting' ? 'running' : s.status,
        stream: {
          device: event.device,
          rateHz: event.granted.rateHz,
          periodFrames: event.granted.periodFrames,
          bufferFrames: event.granted.bufferFrames,
          policy: event.policy,
          hwPcm: event.hwPcm,
          granted: true,
        },
      };
    case 'phase-start':
      return {
        ...s,
        phase: {
          name: event.phase,
          kind: event.kind,
          index: event.index,
          total: event.total,
          startMs: event.timeMs,
          durationMs: event.durationMs,
        },
        load: null,
      };
    case 'phase-end':
      return {
        ...s,
        phases: [
          ...s.phases,
          {
            name: event.phase,
            kind: s.phase?.name === event.phase ? s.phase.kind : event.phase,
            xruns: event.xruns,
            throughput: event.throughput,
            cut: event.cut,
          },
        ],
        phase: s.phase?.name === event.phase ? null : s.phase,
      };
    case 'xrun': {
      const recent = [...s.recentXrunsMs, event.timeMs].filter(
        (t) => t > event.timeMs - RATE_WINDOW_MS,
      );
      return { ...s, xruns: s.xruns + 1, recentXrunsMs: recent, ...bucketXrun(s, event.timeMs) };
    }
    case 'kernel-event': {
      const cls = toBundleV1Class(event.event.offender.class);
      return {
        ...s,
        kernelEvents: s.kernelEvents + 1,
        classCounts: { ...s.classCounts, [cls]: s.classCounts[cls] + 1 },
        offenders: tallyOffender(s.offenders, event.event),
        latestEvent: event.event,
        latestEventMatchedXrun: event.matchedXrun,
      };
    }
    case 'stats': {
      // The interval minimum when the session sends it; else the running minimum.
      const sample = event.intervalHeadroomUs ?? event.headroom?.minUs ?? null;
      const history =
        sample !== null
          ? [...s.headroomMinHistory, sample].slice(-MAX_HEADROOM_SAMPLES)
          : s.headroomMinHistory;
      // Keep the sparkline moving in quiet seconds: extend the buckets to "now".
      const b = extendBuckets(s.xrunBuckets, s.bucketOriginMs, event.timeMs);
      return {
        ...s,
        xrunBuckets: b.counts,
        bucketOriginMs: b.originMs,
        recentXrunsMs: s.recentXrunsMs.filter((t) => t > event.timeMs - RATE_WINDOW_MS),
        headroom: event.headroom ?? s.headroom,
        headroomMinHistory: history,
        load: event.load,
        loadPaused: event.loadPaused,
        // The session's own count wins: it also counts xruns whose events we missed.
        xruns: Math.max(s.xruns, event.xruns),
        kernelEvents: Math.max(s.kernelEvents, event.kernelEvents),
      };
    }
    case 'capture-status':
      return {
        ...s,
        capture: {
          source: event.source,
          lostMessages: event.lostMessages,
          mask: event.mask,
          pcm: event.pcm,
          stackDumps: event.stackDumps,
        },
      };
    case 'warning':
      return { ...s, warnings: [...s.warnings, event.message].slice(-MAX_WARNINGS) };
    case 'report':
      return { ...s, conclusion: [...event.report.conclusion] };
    case 'session-end':
      return { ...s, status: 'ended', exitCode: event.exitCode, phase: null };
  }
}

/** Marks that the user asked to stop (q): shown until the session reports its end. */
export function markStopping(state: DashboardState): DashboardState {
  return state.status === 'ended' ? state : { ...state, status: 'stopping' };
}

/** Folds a list of events (a late dashboard catching up on the bus history). */
export function reduceAll(
  events: readonly SessionEvent[],
  from = initialDashboardState(),
): DashboardState {
  return events.reduce(reduceDashboard, from);
}

/** Xruns per minute over the last minute (or since the start, when shorter). */
export function recentXrunRate(state: DashboardState): number {
  const windowMs = Math.min(RATE_WINDOW_MS, Math.max(state.nowMs, 1));
  return (state.recentXrunsMs.length / windowMs) * 60_000;
}

/**
 * Buckets headroom samples by fraction of the buffer: bucket i holds samples in
 * [i/n, (i+1)/n) of `bufferUs` (the last also takes anything above). Bucket 0 is near-misses.
 */
export function headroomHistogram(
  samplesUs: readonly number[],
  bufferUs: number,
  buckets: number,
): number[] {
  const counts = new Array<number>(Math.max(1, buckets)).fill(0);
  if (!(bufferUs > 0)) return counts;
  for (const us of samplesUs) {
    const i = Math.min(counts.length - 1, Math.max(0, Math.floor((us / bufferUs) * counts.length)));
    counts[i]! += 1;
  }
  return counts;
}
