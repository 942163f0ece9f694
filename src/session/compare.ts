// `compare A B`: two sessions side by side — xruns and rates per phase, headroom (mean,
// standard deviation, low tail, worst case), load throughput, and offenders new / gone /
// moved. This is the preemption-model question in numbers: average and variance vs worst
// case vs throughput. Pure: bundles (and optional event-log samples) in, a comparison out.
import type { Bundle } from '../bundle/index.js';
import type { SessionEvent } from './events.js';
import { compareBreakdowns, type ComparedBreakdowns } from './compare-breakdown.js';

/** Headroom statistics of one phase from per-second minimum samples (µs). */
export interface HeadroomStats {
  mean: number;
  stddev: number;
  /** 1st percentile from the bottom: the low tail that causes xruns. */
  low1: number;
  worst: number;
  samples: number;
}

export interface ComparedPhase {
  name: string;
  a: PhaseSide | null;
  b: PhaseSide | null;
}

export interface PhaseSide {
  durationMs: number;
  xruns: number;
  xrunsPerMin: number;
  mbPerSec: number | null;
  opsPerSec: number | null;
  headroom: HeadroomStats | null;
}

export interface ComparedOffender {
  function: string | null;
  module: string | null;
  signature: string;
  status: 'new' | 'gone' | 'moved' | 'same';
  a: { rank: number; count: number; share: number } | null;
  b: { rank: number; count: number; share: number } | null;
}

export interface SideSummary {
  label: string;
  kernel: string;
  preempt: string;
  device: string;
  periodFrames: number | null;
  bufferFrames: number | null;
  durationMs: number;
  xruns: number;
  xrunsPerMin: number;
  kernelEvents: number;
  /** Whole-run headroom from the playback histogram (µs). */
  headroom: { p50: number; p99: number; min: number; max: number; count: number } | null;
  /** Whole-run headroom stats from event-log samples, when the event log was found. */
  headroomSamples: HeadroomStats | null;
}

/** A side that is a `try` bundle: what it changed and what it found (its B/A over all phases). */
export interface ComparedTry {
  side: 'A' | 'B';
  knobs: string[];
  rounds: number;
  ratio: number | null;
  low: number | null;
  /** null: unbounded. */
  high: number | null;
  significant: boolean;
  verdict: string;
}

export interface Comparison {
  a: SideSummary;
  b: SideSummary;
  phases: ComparedPhase[];
  offenders: ComparedOffender[];
  /** The sides that are `try` bundles (absent when neither is). */
  tries?: ComparedTry[];
  /** The flight recorder's breakdown classes A vs B (absent when neither bundle has any). */
  breakdowns?: ComparedBreakdowns;
  notes: string[];
}

/** The `try` section of a side as compare shows it; null for other kinds. */
function comparedTry(side: 'A' | 'B', b: Bundle): ComparedTry | null {
  if (b.kind !== 'try' || !b.try) return null;
  const t = b.try.total;
  return {
    side,
    knobs: b.try.knobs.map((k) => k.spec),
    rounds: b.try.rounds,
    ratio: t?.ratio ?? null,
    low: t?.low ?? null,
    high: t ? t.high : null,
    significant: t?.significant ?? false,
    verdict: b.try.verdict,
  };
}

/** Mean, standard deviation, low tail and worst of samples (null when empty). */
export function headroomStats(samples: readonly number[]): HeadroomStats | null {
  if (samples.length === 0) return null;
  const n = samples.length;
  const mean = samples.reduce((s, v) => s + v, 0) / n;
  const variance = samples.reduce((s, v) => s + (v - mean) ** 2, 0) / n;
  const sorted = [...samples].sort((x, y) => x - y);
  return {
    mean,
    stddev: Math.sqrt(variance),
    low1: sorted[Math.floor(0.01 * n)]!,
    worst: sorted[0]!,
    samples: n,
  };
}

/** Per-phase headroom samples from an event log's 'stats' events. */
export function headroomSamplesByPhase(events: readonly SessionEvent[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of events) {
    if (e.type !== 'stats' || e.phase === null || e.headroom === null) continue;
    const raw = e.intervalHeadroomUs;
    if (typeof raw !== 'number') continue;
    const list = out.get(e.phase) ?? [];
    list.push(raw);
    out.set(e.phase, list);
  }
  return out;
}

const perMin = (n: number, ms: number): number => (ms > 0 ? (n * 60_000) / ms : 0);
const offenderKey = (o: { function: string | null; module: string | null }): string =>
  `${o.function ?? ''}\u0000${o.module ?? ''}`;

function side(label: string, b: Bundle, samples: Map<string, number[]> | null): SideSummary {
  const all = samples ? [...samples.values()].flat() : [];
  const h = b.histograms?.headroomUs;
  return {
    label,
    kernel: b.host.kernelRelease,
    preempt: b.host.preempt,
    device: b.params?.device ?? '-',
    periodFrames: b.params?.periodFrames ?? null,
    bufferFrames: b.params?.bufferFrames ?? null,
    durationMs: b.durationMs,
    xruns: b.xruns.length,
    xrunsPerMin: perMin(b.xruns.length, b.durationMs),
    kernelEvents: b.events.length,
    headroom:
      h && h.count > 0 ? { p50: h.p50, p99: h.p99, min: h.min, max: h.max, count: h.count } : null,
    headroomSamples: headroomStats(all),
  };
}

function phaseSide(p: Bundle['phases'][number], samples: Map<string, number[]> | null): PhaseSide {
  const durationMs = p.endMs - p.startMs;
  return {
    durationMs,
    xruns: p.xruns,
    xrunsPerMin: perMin(p.xruns, durationMs),
    mbPerSec: p.throughput ? p.throughput.mbPerSec : null,
    opsPerSec: p.throughput?.opsPerSec ?? null,
    headroom: headroomStats(samples?.get(p.name) ?? []),
  };
}

/** Compares two session bundles (A = before/baseline, B = after/candidate). */
export function compareBundles(
  a: { label: string; bundle: Bundle; samples: Map<string, number[]> | null },
  b: { label: string; bundle: Bundle; samples: Map<string, number[]> | null },
): Comparison {
  const notes: string[] = [];
  const names: string[] = [];
  for (const p of [...a.bundle.phases, ...b.bundle.phases])
    if (!names.includes(p.name)) names.push(p.name);
  const phases = names.map((name) => {
    const pa = a.bundle.phases.find((p) => p.name === name);
    const pb = b.bundle.phases.find((p) => p.name === name);
    return {
      name,
      a: pa ? phaseSide(pa, a.samples) : null,
      b: pb ? phaseSide(pb, b.samples) : null,
    };
  });
  const rankOf = (
    list: Bundle['offenders'],
  ): Map<string, { rank: number; count: number; share: number; o: Bundle['offenders'][number] }> =>
    new Map(
      list.map((o, i) => [offenderKey(o), { rank: i + 1, count: o.count, share: o.share, o }]),
    );
  const ra = rankOf(a.bundle.offenders);
  const rb = rankOf(b.bundle.offenders);
  const keys = [...new Set([...rb.keys(), ...ra.keys()])];
  const offenders: ComparedOffender[] = keys.map((k) => {
    const x = ra.get(k);
    const y = rb.get(k);
    const o = (y ?? x)!.o;
    const status: ComparedOffender['status'] = !x
      ? 'new'
      : !y
        ? 'gone'
        : x.rank !== y.rank
          ? 'moved'
          : 'same';
    return {
      function: o.function,
      module: o.module,
      signature: o.signature,
      status,
      a: x ? { rank: x.rank, count: x.count, share: x.share } : null,
      b: y ? { rank: y.rank, count: y.count, share: y.share } : null,
    };
  });
  offenders.sort(
    (p, q) =>
      (p.b?.rank ?? Infinity) - (q.b?.rank ?? Infinity) ||
      (p.a?.rank ?? Infinity) - (q.a?.rank ?? Infinity),
  );
  const pa = a.bundle.params;
  const pb = b.bundle.params;
  if (pa && pb && (pa.periodFrames !== pb.periodFrames || pa.bufferFrames !== pb.bufferFrames)) {
    notes.push(
      `the buffers differ (A ${pa.periodFrames}×${pa.bufferFrames / pa.periodFrames}, B ${pb.periodFrames}×${pb.bufferFrames / pb.periodFrames}): xrun rates are not directly comparable`,
    );
  }
  if (pa && pb && pa.device !== pb.device)
    notes.push(`the devices differ (A ${pa.device}, B ${pb.device})`);
  if (!a.samples || !b.samples) {
    notes.push(
      "per-phase headroom mean/stddev need each bundle folder's events.ndjson; not found for " +
        [!a.samples ? a.label : null, !b.samples ? b.label : null].filter(Boolean).join(' and '),
    );
  }
  const tries = [comparedTry('A', a.bundle), comparedTry('B', b.bundle)].filter(
    (t): t is ComparedTry => t !== null,
  );
  if (tries.length === 1)
    notes.push(
      `${tries[0]!.side} is a try run (its phases are "A …" and "B …", its arms): compare it with another try run, or read its verdict`,
    );
  const breakdowns = compareBreakdowns(a.bundle, b.bundle);
  if (breakdowns && (breakdowns.a.xruns === 0 || breakdowns.b.xruns === 0)) {
    notes.push(
      `only ${breakdowns.a.xruns === 0 ? 'B' : 'A'} carries flight recorder breakdowns: run the other side with --recorder to compare classes`,
    );
  }
  return {
    a: side(a.label, a.bundle, a.samples),
    b: side(b.label, b.bundle, b.samples),
    phases,
    offenders,
    ...(tries.length > 0 ? { tries } : {}),
    ...(breakdowns ? { breakdowns } : {}),
    notes,
  };
}
