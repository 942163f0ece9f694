// The load on the machine at an xrun: load averages, pressure stall shares where the kernel
// has PSI, and the processes that used the most CPU since the previous sample (from
// /proc/<pid>/stat deltas). Pure: samples in, snapshot out.
import type { LoadAverage, Pressure, ProcStat } from './stream-proc-formats.js';

/** USER_HZ: the unit of /proc/<pid>/stat times. 100 on every mainstream architecture
 * (it is fixed ABI, independent of the kernel's CONFIG_HZ). */
export const USER_HZ = 100;
/** The busiest processes kept per snapshot: enough to name the culprit, short enough for a line. */
export const BUSIEST_COUNT = 3;

/** A process and its share of one CPU over the sampled interval. */
export interface BusyProcess {
  pid: number;
  comm: string;
  /** % of one CPU (user + system) over the interval. */
  cpuPct: number;
  /** % of one CPU spent in the kernel on its behalf. */
  systemPct: number;
}

/** What the machine was doing around one xrun. */
export interface LoadSnapshot {
  loadavg: LoadAverage | null;
  /** avg10 "some" shares (%) per resource, where /proc/pressure exists. */
  pressure: { cpu: number | null; io: number | null; memory: number | null } | null;
  busiest: BusyProcess[];
  /** Interval the busiest list covers, ms (0: no earlier sample). */
  intervalMs: number;
}

/** The processes that used the most CPU between two /proc/<pid>/stat samples. */
export function busiestProcesses(
  before: ReadonlyMap<number, ProcStat>,
  after: ReadonlyMap<number, ProcStat>,
  intervalMs: number,
  count = BUSIEST_COUNT,
): BusyProcess[] {
  if (intervalMs <= 0) return [];
  const ticksPerPct = (USER_HZ * intervalMs) / 1000 / 100;
  const rows: BusyProcess[] = [];
  for (const [pid, a] of after) {
    const b = before.get(pid);
    // A process missing before (or a reused pid) was born in the interval: all its time counts.
    // Without any earlier sample there is no interval to speak of.
    if (before.size === 0) continue;
    const base = b && b.comm === a.comm ? b : null;
    const cpu = a.cpuTicks - (base?.cpuTicks ?? 0);
    const sys = a.systemTicks - (base?.systemTicks ?? 0);
    if (cpu <= 0) continue;
    rows.push({
      pid,
      comm: a.comm,
      cpuPct: Math.round(cpu / ticksPerPct),
      systemPct: Math.round(sys / ticksPerPct),
    });
  }
  rows.sort((x, y) => y.cpuPct - x.cpuPct || x.pid - y.pid);
  return rows.slice(0, count);
}

/** One line for humans: `load 1.20 · io 12% · cpu 3% · busiest: dd 95% (sys 90%), kworker/0:1 4%`. */
export function describeLoad(s: LoadSnapshot | null): string {
  if (!s) return 'load unknown';
  const parts: string[] = [];
  if (s.loadavg) parts.push(`load ${s.loadavg.one.toFixed(2)}`);
  if (s.pressure) {
    for (const k of ['cpu', 'io', 'memory'] as const) {
      const v = s.pressure[k];
      if (v !== null) parts.push(`${k} ${v.toFixed(0)}%`);
    }
  }
  if (s.busiest.length > 0) {
    parts.push(
      `busiest: ${s.busiest
        .map((b) => `${b.comm} ${b.cpuPct}%${b.systemPct > 0 ? ` (sys ${b.systemPct}%)` : ''}`)
        .join(', ')}`,
    );
  }
  return parts.join(' · ') || 'load unknown';
}

/** Builds a snapshot from parsed load files (pure glue for the sampler). */
export function loadSnapshot(input: {
  loadavg: LoadAverage | undefined;
  pressure: Partial<Record<'cpu' | 'io' | 'memory', Pressure>>;
  busiest: BusyProcess[];
  intervalMs: number;
}): LoadSnapshot {
  const has = Object.keys(input.pressure).length > 0;
  return {
    loadavg: input.loadavg ?? null,
    pressure: has
      ? {
          cpu: input.pressure.cpu?.someAvg10 ?? null,
          io: input.pressure.io?.someAvg10 ?? null,
          memory: input.pressure.memory?.someAvg10 ?? null,
        }
      : null,
    busiest: input.busiest,
    intervalMs: input.intervalMs,
  };
}
