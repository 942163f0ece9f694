// One thread's scheduler states over a window: running, runnable (woken or preempted, waiting
// for a CPU), sleeping, or unknown, from sched_waking/sched_wakeup/sched_switch. The state
// before the thread's first event is read off that event (switched in → it was runnable;
// switched out → it was running; woken → it was asleep). Pure: sorted events in, states out.
import type { TraceEvent } from './breakdown-types.js';

/** What a thread was doing, as far as the scheduler events tell. */
export type ThreadState = 'running' | 'runnable' | 'sleeping' | 'unknown';

/** One stretch of one state. */
export interface StateSegment {
  start: number;
  end: number;
  state: ThreadState;
  /** The CPU it ran on or waited for (wake-up target, or the CPU it was preempted on). */
  cpu?: number;
}

/** A thread's states and wake-ups over a window. */
export interface ThreadTimeline {
  pid: number;
  /** The comm the events print for it (the last seen). */
  comm?: string;
  segments: StateSegment[];
  /** Times it was woken (sched_waking, or sched_wakeup when the kernel has no waking event). */
  wakeups: { ts: number; cpu?: number; by: { comm: string; pid: number } }[];
  /** True when no event in the window names the thread. */
  unseen: boolean;
}

/** Builds the timeline of `pid` over [t0, t1]. */
export function threadTimeline(
  events: readonly TraceEvent[],
  pid: number,
  t0: number,
  t1: number,
): ThreadTimeline {
  const segments: StateSegment[] = [];
  const wakeups: ThreadTimeline['wakeups'] = [];
  let state: ThreadState = 'unknown';
  let cpu: number | undefined;
  let since = t0;
  let comm: string | undefined;
  let first = true;
  let lastWakeTs = -Infinity;
  const to = (next: ThreadState, at: number, nextCpu: number | undefined): void => {
    if (at > since) segments.push(cpuSeg(since, at, state, cpu));
    since = Math.max(since, at);
    state = next;
    cpu = nextCpu;
  };
  for (const e of events) {
    if (e.ts < t0 || e.ts > t1) continue;
    const f = e.fields;
    if ((e.name === 'sched_waking' || e.name === 'sched_wakeup') && Number(f['pid']) === pid) {
      comm = f['comm'] ?? comm;
      const target = f['target_cpu'] === undefined ? undefined : Number(f['target_cpu']);
      if (first) {
        state = 'sleeping';
        first = false;
      }
      // sched_wakeup follows sched_waking for the same wake-up: count it once.
      const dup = e.name === 'sched_wakeup' && e.ts - lastWakeTs < 0.0005;
      if (e.name === 'sched_waking') lastWakeTs = e.ts;
      if (!dup) wakeups.push({ ts: e.ts, cpu: target, by: { comm: e.comm, pid: e.pid } });
      if (state === 'sleeping' || state === 'unknown') to('runnable', e.ts, target);
      else if (state === 'runnable' && target !== undefined) cpu = target;
    } else if (e.name === 'sched_switch') {
      const prev = Number(f['prev_pid']);
      const next = Number(f['next_pid']);
      if (prev === pid) {
        comm = f['prev_comm'] ?? comm;
        if (first) {
          state = 'running';
          cpu = e.cpu;
          first = false;
        }
        const ps = f['prev_state'] ?? '';
        to(ps.startsWith('R') ? 'runnable' : 'sleeping', e.ts, e.cpu);
      } else if (next === pid) {
        comm = f['next_comm'] ?? comm;
        if (first) {
          state = 'runnable';
          cpu = e.cpu;
          first = false;
        }
        to('running', e.ts, e.cpu);
      }
    } else if (e.pid === pid && first) {
      // Any event recorded while it was current: it was running there.
      comm = e.comm;
      state = 'running';
      cpu = e.cpu;
      first = false;
    }
  }
  if (t1 > since) segments.push(cpuSeg(since, t1, state, cpu));
  const out: ThreadTimeline = { pid, segments, wakeups, unseen: first };
  if (comm !== undefined) out.comm = comm;
  return out;
}

function cpuSeg(start: number, end: number, state: ThreadState, cpu?: number): StateSegment {
  return cpu === undefined ? { start, end, state } : { start, end, state, cpu };
}

/** The state at time t (the segment containing it; the last one at its end). */
export function stateAt(tl: ThreadTimeline, t: number): StateSegment | undefined {
  for (let i = tl.segments.length - 1; i >= 0; i--) {
    const s = tl.segments[i]!;
    if (s.start <= t && t <= s.end) return s;
  }
  return undefined;
}
