// Which thread writes the stream, when the caller does not know: the kernel wakes the writer
// from the period-elapsed path (snd_pcm_period_elapsed → wake_up of the runtime's sleep queue),
// so it is the task woken from "sound context" — inside the sound IRQ handler, by the sound IRQ
// thread, or inside a sound hrtimer callback (snd-dummy, snd-aloop) — most often in the window.
import type { DetectionShape, TraceEvent, XrunHit } from './breakdown-types.js';
import { IRQ_THREAD_COMM } from './detection-shape.js';
import { SOUND_TIMER } from './sound-irq.js';

/** Kernel threads that the period path also wakes (workqueues, RCU): never the writer. */
const KERNEL_THREAD =
  /^(?:kworker\/|ksoftirqd\/|ktimers\/|rcu_|rcuc\/|rcuog\/|migration\/|kswapd|kcompactd|watchdog\/|cpuhp\/|irq\/)/;

/** The writer as found from the wake-ups. */
export interface WriterGuess {
  pid: number;
  comm: string;
  /** Wake-ups from sound context in the window. */
  wakeups: number;
}

/**
 * The task woken from sound context most often in the events (ties: the latest), or undefined.
 * `isSoundIrq` tells the period interrupt's irq_handler_entry events.
 */
export function inferWriter(
  events: readonly TraceEvent[],
  hit: XrunHit,
  shape: DetectionShape,
  isSoundIrq: (e: TraceEvent) => boolean,
): WriterGuess | undefined {
  // The sound IRQ thread: the detector when it is one, else the irq/N thread of a sound IRQ.
  const soundIrqs = new Set<string>();
  for (const e of events)
    if (e.name === 'irq_handler_entry' && isSoundIrq(e)) soundIrqs.add(e.fields['irq'] ?? '');
  const isSoundThread = (e: TraceEvent): boolean => {
    if (shape === 'irq-thread' && e.pid === hit.pid) return true;
    const m = IRQ_THREAD_COMM.exec(e.comm);
    return m !== null && soundIrqs.has(m[1]!);
  };
  const inIrq = new Map<number, boolean[]>(); // cpu → stack of "is a sound handler"
  const inTimer = new Map<number, boolean[]>();
  // cpu → timer-stack depth at each open softirq: a softirq's exit closes every timer frame it
  // opened, so one lost hrtimer_expire_exit cannot leave a sound timer "open" for later wake-ups.
  const softirqDepth = new Map<number, number[]>();
  const counts = new Map<number, WriterGuess & { last: number }>();
  for (const e of events) {
    if (e.ts > hit.ts) break;
    const irqs = inIrq.get(e.cpu) ?? [];
    const timers = inTimer.get(e.cpu) ?? [];
    inIrq.set(e.cpu, irqs);
    inTimer.set(e.cpu, timers);
    switch (e.name) {
      case 'irq_handler_entry':
        irqs.push(isSoundIrq(e));
        continue;
      case 'irq_handler_exit':
        irqs.pop();
        continue;
      case 'hrtimer_expire_entry':
        timers.push(SOUND_TIMER.test(e.fields['function'] ?? ''));
        continue;
      case 'hrtimer_expire_exit':
        timers.pop();
        continue;
      case 'softirq_entry': {
        const depths = softirqDepth.get(e.cpu) ?? [];
        depths.push(timers.length);
        softirqDepth.set(e.cpu, depths);
        continue;
      }
      case 'softirq_exit': {
        const depth = softirqDepth.get(e.cpu)?.pop();
        if (depth !== undefined && timers.length > depth) timers.length = depth;
        continue;
      }
      case 'sched_waking':
      case 'sched_wakeup':
        break;
      default:
        continue;
    }
    const sound =
      irqs[irqs.length - 1] === true ||
      timers[timers.length - 1] === true ||
      (irqs.length === 0 && timers.length === 0 && isSoundThread(e));
    if (!sound) continue;
    const comm = e.fields['comm'] ?? '';
    const pid = Number(e.fields['pid']);
    if (!Number.isFinite(pid) || pid <= 0 || KERNEL_THREAD.test(comm)) continue;
    // sched_wakeup after sched_waking is the same wake-up.
    const c = counts.get(pid);
    if (c && e.name === 'sched_wakeup' && e.ts - c.last < 0.0005) continue;
    if (c) {
      c.wakeups++;
      c.last = e.ts;
      c.comm = comm;
    } else counts.set(pid, { pid, comm, wakeups: 1, last: e.ts });
  }
  let best: (WriterGuess & { last: number }) | undefined;
  for (const c of counts.values())
    if (!best || c.wakeups > best.wakeups || (c.wakeups === best.wakeups && c.last > best.last))
      best = c;
  return best && { pid: best.pid, comm: best.comm, wakeups: best.wakeups };
}
