// Reads the load files for watch: /proc/loadavg, /proc/pressure/{cpu,io,memory} and every
// /proc/<pid>/stat. `tick()` keeps a baseline (called about once a second); `snapshot()`
// compares the processes now against it. Snapshots are reused for a short while, so a burst
// of xruns does not rescan /proc for each one.
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { busiestProcesses, loadSnapshot, type LoadSnapshot } from './load-snapshot.js';
import type { Pressure, ProcStat } from './stream-proc-formats.js';
import { parseLoadavg, parsePressure, parseProcStat } from './stream-proc-formats.js';

/** A burst of xruns within this many ms shares one snapshot (a /proc scan costs ~1 ms per 100 processes). */
const SNAPSHOT_REUSE_MS = 250;

export interface LoadSampler {
  /** Takes a new baseline for the busiest-process deltas. */
  tick(nowMs: number): void;
  /** The load now, with the busiest processes since the last tick. */
  snapshot(nowMs: number): LoadSnapshot;
}

export interface LoadSamplerFs {
  readdir(path: string): string[];
  readFile(path: string): string;
}

const realFs: LoadSamplerFs = {
  readdir: (p) => nodeFs.readdirSync(p),
  readFile: (p) => nodeFs.readFileSync(p, 'utf8'),
};

/** Creates the sampler over `procRoot` (a fake tree in tests has no pids: empty busiest list). */
export function createLoadSampler(
  procRoot: string,
  fs: LoadSamplerFs = realFs,
  /** Processes left out of the busiest list: watch itself (its cost is ours, not the user's). */
  excludePids: readonly number[] = [],
): LoadSampler {
  const readStats = (): Map<number, ProcStat> => {
    const out = new Map<number, ProcStat>();
    let names: string[] = [];
    try {
      names = fs.readdir(procRoot);
    } catch {
      return out;
    }
    for (const n of names) {
      if (!/^\d+$/.test(n)) continue;
      try {
        const s = parseProcStat(fs.readFile(join(procRoot, n, 'stat')));
        if (s && !excludePids.includes(s.pid)) out.set(s.pid, s);
      } catch {
        // the process ended between readdir and read
      }
    }
    return out;
  };
  const tryRead = (rel: string): string | undefined => {
    try {
      return fs.readFile(join(procRoot, rel));
    } catch {
      return undefined;
    }
  };
  let base = new Map<number, ProcStat>();
  let baseAt: number | null = null;
  let last: { at: number; snap: LoadSnapshot } | null = null;
  return {
    tick(nowMs) {
      base = readStats();
      baseAt = nowMs;
    },
    snapshot(nowMs) {
      if (last && nowMs - last.at < SNAPSHOT_REUSE_MS) return last.snap;
      const pressure: Partial<Record<'cpu' | 'io' | 'memory', Pressure>> = {};
      for (const k of ['cpu', 'io', 'memory'] as const) {
        const text = tryRead(`pressure/${k}`);
        if (text !== undefined) pressure[k] = parsePressure(text);
      }
      const loadText = tryRead('loadavg');
      const now = readStats();
      const snap = loadSnapshot({
        loadavg: loadText === undefined ? undefined : parseLoadavg(loadText),
        pressure,
        busiest: busiestProcesses(base, now, baseAt === null ? 0 : nowMs - baseAt),
        intervalMs: baseAt === null ? 0 : Math.round(nowMs - baseAt),
      });
      last = { at: nowMs, snap };
      return snap;
    },
  };
}
