// How one sleep of a thread ended, read off its wake-up: who woke it, in what context. The kernel
// wakes a sleeper from the context that ends its wait, so the context around its sched_waking
// tells the two sleeps of a writer apart that sched_switch alone cannot (both print
// prev_state=S):
//   - its own timer: the wake-up happens inside hrtimer_expire_entry/exit of a timer that is not
//     a sound driver's (hrtimer_wakeup for futex/nanosleep/poll timeouts, timerfd_tmrproc for a
//     timerfd), or in the timer softirq — the thread chose how long to sleep;
//   - the sound path: inside the sound interrupt (or a sound driver's hrtimer), from the sound
//     IRQ thread, or from the task that detected the XRUN after it did (snd_pcm_stop wakes the
//     runtime's sleep queue) — only a thread waiting in the PCM's poll/write sleeps there, so it
//     was waiting for the device;
//   - anything else (another task, another interrupt): named, not judged.
// When the recorder also has hrtimer_start, the arming of that timer by the thread itself gives
// the length it asked for (armed → soft expiry) and how late the timer expired.
// Pure: sorted events in, one answer out.
import type { TraceEvent, XrunHit } from './breakdown-types.js';
import { IRQ_THREAD_COMM } from './detection-shape.js';
import { SOUND_TIMER } from './sound-irq.js';

/** Who ended a sleep. */
export type SleepWaker = 'own-timer' | 'sound' | 'other';

/** One sleep of a thread and how it ended. */
export interface SleepEnd {
  /** Trace time of its switch-out (the sleep's start) and of its wake-up (sched_waking). */
  from: number;
  to: number;
  by: SleepWaker;
  /** The timer function, the interrupt handler, or `comm (pid N)` of the waking task. */
  wokenBy: string;
  /** For an own timer the thread armed itself (hrtimer_start recorded): when, and for when. */
  armedTs?: number;
  /** Soft expiry of that timer (trace time): the earliest time the thread asked to be woken. */
  askedUntil?: number;
  /** When the timer's expiry ran (hrtimer_expire_entry). */
  expiredTs?: number;
}

/** What the caller knows about the sound path of this stream. */
export interface SoundContext {
  /** The stream's period interrupts (irq_handler_entry) and sound driver hrtimers. */
  isSound: (e: TraceEvent) => boolean;
  /** The XRUN, whose detecting task's wake-ups after it are the XRUN's stop. */
  hit: XrunHit;
}

interface Frame {
  kind: 'irq' | 'timer' | 'softirq';
  entry: TraceEvent;
}

/** A trace_pipe mono-clock time from a ktime field in ns (hrtimer_start's expires). */
function nsField(e: TraceEvent, key: string): number | undefined {
  const v = e.fields[key];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  return Number(v) / 1e9;
}

// The sound interrupt numbers of an event list, per list and isSound: a breakdown asks for the
// end of many sleeps of the same window (PipeWire: one per period over the last buffer), and
// a pass over the whole window for each was most of the breakdown's time.
const soundIrqsOf = new WeakMap<
  readonly TraceEvent[],
  { isSound: SoundContext['isSound']; irqs: Set<string> }
>();

function soundIrqNumbers(
  events: readonly TraceEvent[],
  isSound: SoundContext['isSound'],
): Set<string> {
  const known = soundIrqsOf.get(events);
  if (known && known.isSound === isSound) return known.irqs;
  const irqs = new Set<string>();
  for (const e of events)
    if (e.name === 'irq_handler_entry' && isSound(e)) irqs.add(e.fields['irq'] ?? '');
  soundIrqsOf.set(events, { isSound, irqs });
  return irqs;
}

/**
 * The first index of sorted `events` whose ts is above `t` (`atOrAbove`: at or above it);
 * events.length when there is none.
 */
function firstIndexFrom(events: readonly TraceEvent[], t: number, atOrAbove: boolean): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const ts = events[mid]!.ts;
    if (ts > t || (atOrAbove && ts === t)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The last arming of `timer` by `pid` at or before `from` (+1 ns), if recorded. */
function lastArming(
  events: readonly TraceEvent[],
  pid: number,
  timer: string,
  from: number,
): TraceEvent | undefined {
  for (let i = firstIndexFrom(events, from + 1e-9, false) - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.name === 'hrtimer_start' && e.pid === pid && e.fields['hrtimer'] === timer) return e;
  }
  return undefined;
}

/**
 * The end of the sleep of `pid` that began at `from` (its switch-out): the first wake-up of it
 * after `from` in `events` (sorted by ts; they may reach past the hit), or undefined when none
 * is recorded.
 */
export function sleepEnd(
  events: readonly TraceEvent[],
  pid: number,
  from: number,
  sound: SoundContext,
): SleepEnd | undefined {
  const soundIrqs = soundIrqNumbers(events, sound.isSound);
  const stacks = new Map<number, Frame[]>();
  for (let i = firstIndexFrom(events, from, true); i < events.length; i++) {
    const e = events[i]!;
    let st = stacks.get(e.cpu);
    if (!st) stacks.set(e.cpu, (st = []));
    switch (e.name) {
      case 'irq_handler_entry':
        st.push({ kind: 'irq', entry: e });
        continue;
      case 'hrtimer_expire_entry':
        st.push({ kind: 'timer', entry: e });
        continue;
      case 'softirq_entry':
        st.push({ kind: 'softirq', entry: e });
        continue;
      case 'irq_handler_exit':
      case 'hrtimer_expire_exit':
      case 'softirq_exit':
        // An exit whose entry came before `from` pops nothing.
        st.pop();
        continue;
      case 'sched_waking':
      case 'sched_wakeup':
        break;
      default:
        continue;
    }
    if (Number(e.fields['pid']) !== pid || e.ts <= from) continue;
    const top = st[st.length - 1];
    const out = { from, to: e.ts };
    if (top?.kind === 'timer') {
      const fn = top.entry.fields['function'] ?? '?';
      if (SOUND_TIMER.test(fn)) return { ...out, by: 'sound', wokenBy: `hrtimer ${fn}` };
      const end: SleepEnd = { ...out, by: 'own-timer', wokenBy: fn, expiredTs: top.entry.ts };
      const timer = top.entry.fields['hrtimer'];
      const arm = timer === undefined ? undefined : lastArming(events, pid, timer, from);
      const soft = arm && (nsField(arm, 'softexpires') ?? nsField(arm, 'expires'));
      // A timer on another clock base (CLOCK_REALTIME) prints a time this clock cannot place.
      if (arm && soft !== undefined && soft >= arm.ts && soft - arm.ts < 3600) {
        end.armedTs = arm.ts;
        end.askedUntil = soft;
      }
      return end;
    }
    if (top?.kind === 'irq') {
      const name = top.entry.fields['name'] ?? `irq ${top.entry.fields['irq'] ?? '?'}`;
      return { ...out, by: sound.isSound(top.entry) ? 'sound' : 'other', wokenBy: name };
    }
    if (top?.kind === 'softirq') {
      const action = top.entry.fields['action'] ?? `vec ${top.entry.fields['vec'] ?? '?'}`;
      return {
        ...out,
        by: action === 'TIMER' ? 'own-timer' : 'other',
        wokenBy: `softirq ${action}`,
      };
    }
    const irqThread = IRQ_THREAD_COMM.exec(e.comm);
    const fromSound =
      (irqThread !== null && soundIrqs.has(irqThread[1]!)) ||
      (e.pid === sound.hit.pid && e.ts >= sound.hit.ts);
    return { ...out, by: fromSound ? 'sound' : 'other', wokenBy: `${e.comm} (pid ${e.pid})` };
  }
  return undefined;
}
