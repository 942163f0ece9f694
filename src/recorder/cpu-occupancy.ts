// Who had each CPU when: the innermost context (hard IRQ handler, softirq, hrtimer callback, or
// the current task, idle for pid 0) as time segments, from the recorder's events. The current
// task is known from every event's comm-pid column, so a CPU is covered from its first event
// on, not only from its first sched_switch. Pure: sorted events in, segments out.
import type { TraceEvent } from './breakdown-types.js';
import { flagContext } from './detection-shape.js';

/** What occupied a CPU during a segment. */
export type Occupant =
  | { kind: 'task'; comm: string; pid: number; prio?: number }
  | { kind: 'idle' }
  | { kind: 'irq'; name: string }
  | { kind: 'softirq'; name: string };

/** One stretch of a CPU held by one occupant. */
export interface OccupancySegment {
  start: number;
  end: number;
  occupant: Occupant;
  /** The stack of a traced interrupt that hit this task segment (its kernel stack then). */
  interruptedStack?: readonly string[];
}

/** Per CPU, segments in time order over [t0, t1]; a CPU without events in the window is absent. */
export type CpuOccupancy = ReadonlyMap<number, readonly OccupancySegment[]>;

const CONTEXT_EVENTS = new Set([
  'irq_handler_entry',
  'irq_handler_exit',
  'softirq_entry',
  'softirq_exit',
  'hrtimer_expire_entry',
  'hrtimer_expire_exit',
]);

interface CpuState {
  task: Occupant;
  contexts: { kind: 'irq' | 'softirq' | 'hrtimer'; occupant: Occupant }[];
  since: number;
  segments: OccupancySegment[];
  stack?: readonly string[];
}

/** The priority of each pid as the events print it (last seen wins). */
export function priorities(events: readonly TraceEvent[]): Map<number, number> {
  const prio = new Map<number, number>();
  for (const e of events) {
    const f = e.fields;
    if (e.name === 'sched_switch') {
      setNum(prio, f['prev_pid'], f['prev_prio']);
      setNum(prio, f['next_pid'], f['next_prio']);
    } else if (e.name === 'sched_waking' || e.name === 'sched_wakeup')
      setNum(prio, f['pid'], f['prio']);
  }
  return prio;
}

function setNum(m: Map<number, number>, k: string | undefined, v: string | undefined): void {
  if (k === undefined || v === undefined) return;
  const kn = Number(k);
  const vn = Number(v);
  if (Number.isFinite(kn) && Number.isFinite(vn)) m.set(kn, vn);
}

function taskOf(comm: string, pid: number, prio: Map<number, number>): Occupant {
  if (pid === 0) return { kind: 'idle' };
  const p = prio.get(pid);
  return p === undefined ? { kind: 'task', comm, pid } : { kind: 'task', comm, pid, prio: p };
}

function inner(s: CpuState): Occupant {
  return s.contexts.length > 0 ? s.contexts[s.contexts.length - 1]!.occupant : s.task;
}

function close(s: CpuState, at: number): void {
  if (at > s.since) {
    const seg: OccupancySegment = { start: s.since, end: at, occupant: inner(s) };
    if (s.stack && seg.occupant.kind === 'task') seg.interruptedStack = s.stack;
    s.segments.push(seg);
  }
  s.since = Math.max(s.since, at);
}

/** Pops the innermost context of one kind (an exit whose entry came before the window is ignored). */
function pop(s: CpuState, kind: 'irq' | 'softirq' | 'hrtimer'): void {
  for (let i = s.contexts.length - 1; i >= 0; i--)
    if (s.contexts[i]!.kind === kind) {
      s.contexts.splice(i, 1);
      return;
    }
}

/** Builds the occupancy of every CPU that has events in [t0, t1] (events sorted by ts). */
export function cpuOccupancy(events: readonly TraceEvent[], t0: number, t1: number): CpuOccupancy {
  const prio = priorities(events);
  const cpus = new Map<number, CpuState>();
  for (const e of events) {
    if (e.ts < t0 || e.ts > t1 || e.pid < 0) continue;
    let s = cpus.get(e.cpu);
    if (!s) {
      // Before its first event the CPU ran the task that event names (a switch would be an event).
      s = { task: taskOf(e.comm, e.pid, prio), contexts: [], since: t0, segments: [] };
      // An exit whose entry came before the window: that context from t0.
      const entry = e.name === 'irq_handler_entry' || e.name === 'softirq_entry';
      if (!entry && (e.name === 'irq_handler_exit' || e.name === 'softirq_exit')) {
        const kind = e.name === 'irq_handler_exit' ? 'irq' : 'softirq';
        s.contexts.push({ kind, occupant: { kind, name: contextName(e) } });
      }
      cpus.set(e.cpu, s);
    }
    // An event in task context (flags `.` in the IRQ column) closes contexts whose exit was not
    // traced (IPIs and the local timer have no irq_handler events of their own).
    if (flagContext(e.flags) === 'task' && s.contexts.length > 0 && !CONTEXT_EVENTS.has(e.name)) {
      close(s, e.ts);
      s.contexts.length = 0;
    }
    switch (e.name) {
      case 'sched_switch': {
        close(s, e.ts);
        const pid = Number(e.fields['next_pid']);
        s.task = taskOf(e.fields['next_comm'] ?? '?', Number.isFinite(pid) ? pid : -1, prio);
        s.stack = undefined;
        break;
      }
      case 'irq_handler_entry':
        close(s, e.ts);
        if (e.stack && s.contexts.length === 0) s.stack = e.stack;
        s.contexts.push({ kind: 'irq', occupant: { kind: 'irq', name: contextName(e) } });
        break;
      case 'irq_handler_exit':
        close(s, e.ts);
        pop(s, 'irq');
        break;
      case 'softirq_entry':
        close(s, e.ts);
        s.contexts.push({ kind: 'softirq', occupant: { kind: 'softirq', name: contextName(e) } });
        break;
      case 'softirq_exit':
        close(s, e.ts);
        pop(s, 'softirq');
        break;
      case 'hrtimer_expire_entry': {
        close(s, e.ts);
        const name = `hrtimer ${e.fields['function'] ?? '?'}`;
        // In a hard IRQ (the local timer interrupt, which has no irq_handler_entry) or a softirq.
        const occupant: Occupant =
          flagContext(e.flags) === 'softirq' ? { kind: 'softirq', name } : { kind: 'irq', name };
        s.contexts.push({ kind: 'hrtimer', occupant });
        break;
      }
      case 'hrtimer_expire_exit':
        close(s, e.ts);
        pop(s, 'hrtimer');
        break;
      default:
        break;
    }
  }
  const out = new Map<number, OccupancySegment[]>();
  for (const [cpu, s] of cpus) {
    close(s, t1);
    out.set(cpu, s.segments);
  }
  return out;
}

/** The name an interrupt or softirq part carries: handler name, softirq action (or vector). */
export function contextName(e: TraceEvent): string {
  if (e.name.startsWith('irq_handler')) return e.fields['name'] ?? `irq ${e.fields['irq'] ?? '?'}`;
  return e.fields['action'] ?? `vec ${e.fields['vec'] ?? '?'}`;
}

/** The segments of one CPU that overlap [a, b], clipped to it. */
export function occupantsBetween(
  occ: CpuOccupancy,
  cpu: number,
  a: number,
  b: number,
): OccupancySegment[] {
  const segs = occ.get(cpu);
  if (!segs || b <= a) return [];
  const out: OccupancySegment[] = [];
  for (const s of segs) {
    if (s.end <= a || s.start >= b) continue;
    out.push({ ...s, start: Math.max(s.start, a), end: Math.min(s.end, b) });
  }
  return out;
}
