// The sound card's period interrupts in a window, and the stretches where one came late: the
// kernel updates the hw pointer (snd_pcm_update_hw_ptr0) at each period interrupt, so the
// next one is due a period after the previous one; a later entry means interrupts were off
// (or the CPU did not run at all) in between. The interrupted code is named from that
// entry's stack when the recorder's `stacktrace if irq==N` trigger recorded it.
import type { StreamTiming, TraceEvent, XrunHit } from './breakdown-types.js';
import { irqOfThread } from './detection-shape.js';

/** Slack before a period interrupt counts as late: a quarter period, at least 0.2 ms. */
export function lateIrqSlack(periodSeconds: number): number {
  return Math.max(0.0002, periodSeconds / 4);
}

/** A stretch where the period interrupt was due but had not come. */
export interface LateIrqStretch {
  /** When it was due (previous entry + period) and when it came (the late entry). */
  due: number;
  came: number;
  cpu: number;
  /** The late entry event (its comm-pid is the interrupted task, its stack the interrupted code). */
  entry: TraceEvent;
  /**
   * The CPU was silent (no event at all: no tick, no switch, no other interrupt) for most of the
   * stretch and for longer than a tick: interrupts were off there (or the CPU did not run at
   * all, e.g. a stalled virtual CPU). False when it was busy, or silent too briefly to tell an
   * irq-off section from a device that was late.
   */
  irqsOff: boolean;
  /** The longest silent gap of that CPU in the stretch: where interrupts were off, if they were. */
  silentFrom: number;
  silentTo: number;
  /**
   * Before the silence, the task on that CPU was asked to reschedule (need-resched set) and went
   * on running: preemption was off, so it would have held the CPU with interrupts on as well.
   */
  preemptOff: boolean;
}

const SOUND_IRQ_NAME = /snd|hda|azx|audio|sound|ac97|intel8x0|usb/i;
/** hrtimer callbacks of sound drivers (snd-dummy, snd-aloop, the PCM timer): their "interrupt". */
export const SOUND_TIMER = /snd|pcm|dummy|aloop|loopback/i;

/** A sound driver's hrtimer expiring (the period "interrupt" of timer-driven cards). */
export function isSoundTimer(e: TraceEvent): boolean {
  return e.name === 'hrtimer_expire_entry' && SOUND_TIMER.test(e.fields['function'] ?? '');
}

/**
 * Which events are the stream's period interrupts: a sound driver's hrtimer expiring, or an
 * irq_handler_entry picked by the names the caller knows, else by the IRQ number of a detecting
 * IRQ thread, else by the interrupt the hit ran in (hard-IRQ detection), else by a sound-like
 * handler name.
 */
export function soundIrqMatcher(
  events: readonly TraceEvent[],
  hit: XrunHit,
  timing: StreamTiming,
): (e: TraceEvent) => boolean {
  const irq = soundIrqEntryMatcher(events, hit, timing);
  return (e) => irq(e) || isSoundTimer(e);
}

function soundIrqEntryMatcher(
  events: readonly TraceEvent[],
  hit: XrunHit,
  timing: StreamTiming,
): (e: TraceEvent) => boolean {
  const names = timing.irqNames;
  if (names && names.length > 0) {
    const set = new Set(names);
    return (e) => e.name === 'irq_handler_entry' && set.has(e.fields['name'] ?? '');
  }
  const fromThread = irqOfThread(hit.comm);
  if (fromThread !== undefined)
    return (e) => e.name === 'irq_handler_entry' && Number(e.fields['irq']) === fromThread;
  // The innermost open handler on the hit's CPU at the hit.
  const open: TraceEvent[] = [];
  for (const e of events) {
    if (e.cpu !== hit.cpu || e.ts > hit.ts) continue;
    if (e.name === 'irq_handler_entry') open.push(e);
    else if (e.name === 'irq_handler_exit') open.pop();
  }
  const enclosing = open[open.length - 1];
  if (enclosing) {
    const irq = enclosing.fields['irq'];
    return (e) => e.name === 'irq_handler_entry' && e.fields['irq'] === irq;
  }
  return (e) => e.name === 'irq_handler_entry' && SOUND_IRQ_NAME.test(e.fields['name'] ?? '');
}

/** The stretches in which a period interrupt was late (sorted events in). */
export function lateIrqStretches(
  events: readonly TraceEvent[],
  isSound: (e: TraceEvent) => boolean,
  periodSeconds: number,
): LateIrqStretch[] {
  const out: LateIrqStretch[] = [];
  const slack = lateIrqSlack(periodSeconds);
  let prev: TraceEvent | undefined;
  for (const e of events) {
    if (!isSound(e)) continue;
    if (prev && e.ts - prev.ts > periodSeconds + slack) {
      const due = prev.ts + periodSeconds;
      const gap = longestSilence(events, e.cpu, prev.ts, e.ts);
      const silent = gap.to - gap.from;
      const off = silent >= (e.ts - due) / 2 && silent > tickSeconds(events, e.cpu);
      out.push({
        due,
        came: e.ts,
        cpu: e.cpu,
        entry: e,
        irqsOff: off,
        silentFrom: gap.from,
        silentTo: gap.to,
        preemptOff: reschedPending(events, e.cpu, gap.from),
      });
    }
    prev = e;
  }
  return out;
}

/** The longest time without any event on `cpu` within [a, b]. */
function longestSilence(
  events: readonly TraceEvent[],
  cpu: number,
  a: number,
  b: number,
): { from: number; to: number } {
  let last = a;
  let best = { from: a, to: a };
  for (const e of events) {
    if (e.cpu !== cpu || e.ts <= a) continue;
    if (e.ts >= b) break;
    if (e.ts - last > best.to - best.from) best = { from: last, to: e.ts };
    last = e.ts;
  }
  return b - last > best.to - best.from ? { from: last, to: b } : best;
}

/** Debian's HZ=250 tick, when the window shows no two ticks on the CPU. */
const DEFAULT_TICK = 0.004;

/** The CPU's tick interval as the window shows it (shortest gap between two ticks, ≥ 0.5 ms; at most 4 ms). */
export function tickSeconds(events: readonly TraceEvent[], cpu: number): number {
  let last: number | undefined;
  let best = Infinity;
  for (const e of events) {
    if (e.cpu !== cpu || e.name !== 'hrtimer_expire_entry') continue;
    if (e.fields['function'] !== 'tick_sched_timer') continue;
    if (last !== undefined && e.ts - last >= 0.0005) best = Math.min(best, e.ts - last);
    last = e.ts;
  }
  // A short window may hold only the two ticks around the silence itself: never above HZ=250's.
  return Math.min(best, DEFAULT_TICK);
}

/** The need-resched column of the latency flags (`N`, `n`, `p`; PREEMPT_RT's lazy `L`). */
function needsResched(flags: string): boolean {
  return (
    (flags.length >= 4 && 'Nnp'.includes(flags[1]!)) || (flags.length >= 7 && flags[2] === 'L')
  );
}

/** Whether the CPU's current task had need-resched set, with no switch since, by time t. */
export function reschedPending(events: readonly TraceEvent[], cpu: number, t: number): boolean {
  let pending = false;
  for (const e of events) {
    if (e.ts > t) break;
    if (e.cpu !== cpu) continue;
    if (e.name === 'sched_switch') pending = false;
    else if (needsResched(e.flags)) pending = true;
  }
  return pending;
}
