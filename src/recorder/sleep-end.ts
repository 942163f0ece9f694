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

/**
 * The end of the sleep of `pid` that began at `from` (its switch-out): the first wake-up of it
 * after `from` in `events` (which may reach past the hit), or undefined when none is recorded.
 */
export function sleepEnd(
  events: readonly TraceEvent[],
  pid: number,
  from: number,
  sound: SoundContext,
): SleepEnd | undefined {
  const soundIrqs = new Set<string>();
  for (const e of events)
    if (e.name === 'irq_handler_entry' && sound.isSound(e)) soundIrqs.add(e.fields['irq'] ?? '');
  const stacks = new Map<number, Frame[]>();
  // The thread's own hrtimer arming, by timer pointer (the last one before the sleep).
  const armed = new Map<string, TraceEvent>();
  for (const e of events) {
    if (e.name === 'hrtimer_start' && e.pid === pid && e.ts <= from + 1e-9) {
      const t = e.fields['hrtimer'];
      if (t !== undefined) armed.set(t, e);
    }
    if (e.ts < from) continue;
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
      const arm = armed.get(top.entry.fields['hrtimer'] ?? '');
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
