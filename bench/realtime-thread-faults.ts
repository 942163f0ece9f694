// Steady-state minor faults per second of a process tree's SCHED_FIFO thread (the xrunhunt
// writer), read from /proc from outside: the JSON summary counts the whole loop, start-up
// included (JIT, first touches of the buffers), which hides what a thread costs once it runs.
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const SCHED_FIFO = 1;

interface ThreadSample {
  tid: number;
  minorFaults: number;
}

// Fields after the `(comm)` of /proc/.../stat: minflt is field 10, policy field 41.
function readStat(path: string): { minorFaults: number; policy: number } | null {
  try {
    const text = readFileSync(path, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { minorFaults: Number(f[10 - 3]), policy: Number(f[41 - 3]) };
  } catch {
    return null;
  }
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

// The first SCHED_FIFO thread in the tree under rootPid.
function findFifoThread(rootPid: number): { pid: number; tid: number } | null {
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const t of tids) {
      if (readStat(`/proc/${pid}/task/${t}/stat`)?.policy === SCHED_FIFO) {
        return { pid, tid: Number(t) };
      }
    }
    queue.push(...children(pid));
  }
  return null;
}

async function sampleAt(
  rootPid: number,
  atMs: number,
  startMs: number,
): Promise<ThreadSample | null> {
  const wait = startMs + atMs - Date.now();
  if (wait > 0) await sleep(wait);
  const found = findFifoThread(rootPid);
  if (!found) return null;
  const st = readStat(`/proc/${found.pid}/task/${found.tid}/stat`);
  return st ? { tid: found.tid, minorFaults: st.minorFaults } : null;
}

/** Minor faults/s of the SCHED_FIFO thread under rootPid between fromS and toS after now. */
export async function steadyMinorFaultsPerSecond(
  rootPid: number,
  fromS: number,
  toS: number,
): Promise<number | null> {
  const start = Date.now();
  const a = await sampleAt(rootPid, fromS * 1000, start);
  const b = await sampleAt(rootPid, toS * 1000, start);
  if (!a || !b || a.tid !== b.tid) return null;
  return (b.minorFaults - a.minorFaults) / (toS - fromS);
}
