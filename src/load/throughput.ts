// Throughput arithmetic shared by the live line, the per-second samples and the final report.
// Pure: counters and times in, figures out.
import type { LoadKind, LoadSample, LoadStats } from './types.js';

/** Counters a worker reports; monotonically increasing within one worker. */
export interface LoadCounters {
  bytes: number;
  ops: number;
  /** ms the worker has been doing the load itself (preparation excluded). */
  activeMs: number;
}

export const ZERO_COUNTERS: LoadCounters = { bytes: 0, ops: 0, activeMs: 0 };

/** Adds the counters of parallel workers; active time is the longest worker's. */
export function sumCounters(all: readonly LoadCounters[]): LoadCounters {
  return all.reduce<LoadCounters>(
    (acc, c) => ({
      bytes: acc.bytes + c.bytes,
      ops: acc.ops + c.ops,
      activeMs: Math.max(acc.activeMs, c.activeMs),
    }),
    ZERO_COUNTERS,
  );
}

/** MB/s with MB = 10^6 bytes, as dd, fio and iostat print it. */
export function mbPerSec(bytes: number, seconds: number): number {
  return seconds > 0 ? round(bytes / 1e6 / seconds, 2) : 0;
}

/** Rate per second, rounded for display and JSON. */
export function perSec(count: number, seconds: number): number {
  return seconds > 0 ? round(count / seconds, 1) : 0;
}

/** Builds the stats document from summed counters. `opsUnit` undefined = the kind has no ops. */
export function toStats(
  kind: LoadKind,
  counters: LoadCounters,
  workers: number,
  opsUnit: string | undefined,
): LoadStats {
  const seconds = round(counters.activeMs / 1000, 3);
  return {
    kind,
    seconds,
    bytes: counters.bytes,
    mbPerSec: mbPerSec(counters.bytes, seconds),
    ...(opsUnit === undefined
      ? {}
      : { ops: counters.ops, opsPerSec: perSec(counters.ops, seconds), opsUnit }),
    workers,
  };
}

/** The throughput between two snapshots of the summed counters. */
export function sampleBetween(
  kind: LoadKind,
  before: LoadCounters,
  after: LoadCounters,
  intervalMs: number,
): LoadSample {
  const seconds = intervalMs / 1000;
  const bytes = after.bytes - before.bytes;
  const ops = after.ops - before.ops;
  return {
    kind,
    t: round(after.activeMs / 1000, 1),
    seconds: round(seconds, 3),
    bytes,
    mbPerSec: mbPerSec(bytes, seconds),
    ops,
    opsPerSec: perSec(ops, seconds),
  };
}

/** One human line per second on stderr: `write  3s  412.5 MB/s  ...`. */
export function formatSampleLine(sample: LoadSample, opsUnit: string | undefined): string {
  const parts = [`${sample.kind}`, `${sample.t.toFixed(0)}s`];
  if (sample.bytes > 0 || opsUnit === undefined) parts.push(`${sample.mbPerSec.toFixed(1)} MB/s`);
  if (opsUnit !== undefined) parts.push(`${sample.opsPerSec.toFixed(0)} ${plural(opsUnit)}/s`);
  return parts.join('  ');
}

/** `hash` → `hashes`, `process` → `processes`, `fsync` → `fsyncs`, `file op` → `file ops`. */
export function plural(unit: string): string {
  return /(s|sh|ch|x)$/.test(unit) ? `${unit}es` : `${unit}s`;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
