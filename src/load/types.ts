// The load contract shared by every generator, the CLI and sessions: what a load is asked to
// do (options), what it reports while running and at the end (stats). Pure types only.

/** Every load kind `xrunhunt load <kind>` and phase plans accept. `idle` runs nothing. */
export const LOAD_KINDS = [
  'idle',
  'write',
  'fsync',
  'metadata',
  'read',
  'memory',
  'cpu',
  'fork',
  'external',
] as const;

export type LoadKind = (typeof LOAD_KINDS)[number];

/** What the caller asks for; anything left out gets the kind's default. */
export interface LoadOptions {
  /** Wall-clock bound of the run in ms (every load is bounded in time). */
  durationMs: number;
  /** Parent folder for the load's own temporary folder (default: the system temp dir). */
  dir?: string;
  /** Bytes the load may occupy (disk for disk kinds, anonymous memory for `memory`). */
  sizeBytes?: number;
  /** Parallel child processes (default: 1, or the core count for `cpu` and `fork`). */
  workers?: number;
  /** CPUs the workers (every thread, and what they spawn) are pinned to; unset: any CPU. */
  cpus?: number[];
  /** `read`: drop the page cache (root only) after preparing the file and at each pass. */
  dropCaches?: boolean;
  /** `external`: the command and its arguments. */
  command?: string[];
  /** `external`: where the command's stdout+stderr are kept (default: a file in the temp dir). */
  outputPath?: string;
  /** Free space kept on the filesystem, bytes (default: 10% of it or 1 GiB, whichever is larger). */
  minFreeBytes?: number;
  /** Stop after this many bytes of load work in total (benchmarks; default: no limit). */
  limitBytes?: number;
  /** Called about once a second with the throughput of the last second. */
  onSample?: (sample: LoadSample) => void;
}

/** Why a load ended. `disk-full` and `failed` are reported, never thrown mid-run. */
export type LoadStopReason =
  'duration' | 'limit' | 'interrupted' | 'disk-full' | 'failed' | 'exited';

/** Throughput of one interval (about a second). */
export interface LoadSample {
  kind: LoadKind;
  /** Seconds since the load started working. */
  t: number;
  seconds: number;
  bytes: number;
  mbPerSec: number;
  ops: number;
  opsPerSec: number;
}

/** Live and final figures of a load; `--json` prints this (the final one). */
export interface LoadStats {
  kind: LoadKind;
  /** Seconds the load was working (after preparation such as writing `read`'s file). */
  seconds: number;
  /** Bytes written, read, hashed or touched, depending on the kind. */
  bytes: number;
  /** bytes / seconds in MB/s (10^6 bytes, as dd and fio print). */
  mbPerSec: number;
  /** Operations counted by kinds that have them (fsyncs, files, processes, pages). */
  ops?: number;
  opsPerSec?: number;
  /** What one op is: 'fsync', 'file op', 'process', 'page', 'hash'. */
  opsUnit?: string;
  workers: number;
  /** Set once the load has ended. */
  stopReason?: LoadStopReason;
  /** A sentence for the user when the stop was not the plan (disk full, a worker failed). */
  stopDetail?: string;
  /** `external`: the command's exit status and where its output is. */
  exitCode?: number | null;
  exitSignal?: string | null;
  outputPath?: string;
}

/** One running (or finished) load. Implementations do their work in child processes. */
export interface LoadGenerator {
  readonly kind: LoadKind;
  /**
   * Runs the load until its duration, its byte limit, `signal`, or an error such as a full
   * disk; resolves with the final stats (also on disk-full: see `stopReason`), rejects only
   * with an XrunhuntError when it cannot start (refused by a safety check, bad command).
   * Everything the load created is removed before the promise settles.
   */
  start(signal?: AbortSignal): Promise<LoadStats>;
  /** Live figures; cheap, callable at any time (zeros before start). */
  stats(): LoadStats;
  /** Folders left by killed earlier runs that start() removed (empty before start). */
  readonly cleaned: CleanedFolder[];
}

/** A folder a previous, killed run left behind, removed at start. */
export interface CleanedFolder {
  path: string;
  pid: number;
}
