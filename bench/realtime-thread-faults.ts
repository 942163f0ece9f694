// Steady-state minor faults per second of a process tree's SCHED_FIFO thread (the xrunhunt
// writer), read from /proc from outside: the JSON summary counts the whole loop, start-up
// included (JIT, first touches of the buffers), which hides what a thread costs once it runs.
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const SCHED_FIFO = 1;

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

// Minor faults of every SCHED_FIFO thread in the tree under rootPid, by thread id.
function fifoThreadFaults(rootPid: number): Map<number, number> {
  const out = new Map<number, number>();
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
      const st = readStat(`/proc/${pid}/task/${t}/stat`);
      if (st?.policy === SCHED_FIFO) out.set(Number(t), st.minorFaults);
    }
    queue.push(...children(pid));
  }
  return out;
}

async function sampleAt(
  rootPid: number,
  atMs: number,
  startMs: number,
): Promise<Map<number, number>> {
  const wait = startMs + atMs - Date.now();
  if (wait > 0) await sleep(wait);
  return fifoThreadFaults(rootPid);
}

/**
 * Samples the SCHED_FIFO threads under rootPid fromS and toS after now; the result gives one
 * thread's minor faults/s in between (the writer's tid is in the JSON summary, known at the end).
 */
export async function steadyMinorFaults(
  rootPid: number,
  fromS: number,
  toS: number,
): Promise<(tid: number) => number | null> {
  const start = Date.now();
  const a = await sampleAt(rootPid, fromS * 1000, start);
  const b = await sampleAt(rootPid, toS * 1000, start);
  return (tid) => {
    const before = a.get(tid);
    const after = b.get(tid);
    return before === undefined || after === undefined ? null : (after - before) / (toS - fromS);
  };
}
