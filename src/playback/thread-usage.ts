// CPU time and page faults of the calling thread, from /proc/thread-self/stat: the writer's
// own cost, and the faults that can stall a real-time thread (a fault may wait on the
// process's mmap lock held by a normal-priority thread).
import { readFileSync } from 'node:fs';

export interface ThreadUsage {
  cpuMs: number;
  minorFaults: number;
  majorFaults: number;
}

// USER_HZ: /proc reports utime/stime in clock ticks, 100 per second on Linux.
const TICKS_PER_SECOND = 100;

/** Parses a /proc/<pid>/task/<tid>/stat line (the comm field may contain spaces and parens). */
export function parseThreadStat(text: string): ThreadUsage | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  // Fields after comm start at field 3 (state); minflt = 10, majflt = 12, utime = 14, stime = 15.
  const f = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const num = (field: number): number => Number(f[field - 3]);
  const out = {
    cpuMs: ((num(14) + num(15)) * 1000) / TICKS_PER_SECOND,
    minorFaults: num(10),
    majorFaults: num(12),
  };
  return Object.values(out).every(Number.isFinite) ? out : null;
}

/** Reads the calling thread's usage; null where /proc/thread-self is unavailable. */
export function readThreadUsage(
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): ThreadUsage | null {
  try {
    return parseThreadStat(read('/proc/thread-self/stat'));
  } catch {
    return null;
  }
}

/** Usage between two readings (null if either is missing). */
export function diffThreadUsage(a: ThreadUsage | null, b: ThreadUsage | null): ThreadUsage | null {
  if (!a || !b) return null;
  return {
    cpuMs: b.cpuMs - a.cpuMs,
    minorFaults: b.minorFaults - a.minorFaults,
    majorFaults: b.majorFaults - a.majorFaults,
  };
}
