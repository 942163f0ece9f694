// How the kernel came to detect an XRUN: in the period interrupt, in a threaded interrupt
// handler, in a softirq (or its thread), or in a task's own system call. The breakdown looks
// for the late thread differently in each. Read from the hit's context flags (the latency
// format's hardirq/softirq column: `h`/`H` hard IRQ, `s`/`S` softirq) and comm, and, where
// those say nothing (old kernels without the flags column), from the detection stack.
import type { DetectionShape, XrunHit } from './breakdown-types.js';

/** A threaded interrupt handler's comm: `irq/33-snd_hda_`, `irq/25-virtio0-`. */
export const IRQ_THREAD_COMM = /^irq\/(\d+)-/;
/** Softirq threads: ksoftirqd/N, and PREEMPT_RT's timer softirq thread ktimers/N. */
export const SOFTIRQ_THREAD_COMM = /^(?:ksoftirqd|ktimers|ktimersoftd)\/\d+$/;

const THREADED_IRQ_FRAME =
  /^(?:irq_thread|irq_forced_thread_fn|irq_thread_fn|do_irqd|do_hardirq|thread_simple_irq|thread_edge_irq|thread_level_irq|thread_fasteoi_irq|thread_do_irq)(?:[+\s]|$)/;
const SOFTIRQ_FRAME =
  /^(?:run_ksoftirqd|__do_softirq|handle_softirqs|do_softirq|invoke_softirq|hrtimer_run_softirq|tasklet_action\w*|run_timersd|ksoftirqd)(?:[+\s]|$)/;
const HARDIRQ_FRAME =
  /^(?:common_interrupt|__common_interrupt|asm_common_interrupt|handle_irq_event|__handle_irq_event_percpu|handle_irq_event_percpu|do_IRQ|handle_edge_irq|handle_fasteoi_irq|__sysvec_\w+|sysvec_\w+)(?:[+\s]|$)/;
const PROCESS_FRAME =
  /^(?:snd_pcm_common_ioctl|snd_pcm_ioctl|snd_pcm_hwsync|snd_pcm_delay|snd_pcm_status\w*|snd_pcm_lib_write\w*|snd_pcm_lib_read\w*|__snd_pcm_lib_xfer|snd_pcm_playback_ioctl\w*|snd_pcm_capture_ioctl\w*|snd_pcm_ioctl_sync_ptr\w*|snd_pcm_sync_ptr|snd_pcm_forward\w*|snd_pcm_rewind\w*|snd_pcm_write|snd_pcm_read|snd_pcm_writev|snd_pcm_readv|snd_pcm_poll|snd_pcm_playback_poll|snd_pcm_capture_poll|__x64_sys_ioctl|__arm64_sys_ioctl|ksys_ioctl|do_syscall_64|entry_SYSCALL_64\w*)(?:[+\s]|$)/;

/** The context an event was recorded in, from its latency flags; undefined without them. */
export type FlagContext = 'hardirq' | 'softirq' | 'nmi' | 'task';

/**
 * Reads the hardirq/softirq column of the latency flags. It is the third character in every
 * era (`d.h1`, `dNh2.`), except on PREEMPT_RT kernels with lazy preemption, whose 7-char flags
 * put a need-resched-lazy column before it (`dn.h1..`, `...s.12`).
 */
export function flagContext(flags: string): FlagContext | undefined {
  if (flags.length < 4) return undefined;
  let c = flags[2]!;
  if (!'hHsSzZ'.includes(c) && flags.length >= 7) c = flags[3]!;
  switch (c) {
    case 'h':
    case 'H':
      return 'hardirq';
    case 's':
      return 'softirq';
    case 'z':
    case 'Z':
      return 'nmi';
    case '.':
      return 'task';
    default:
      return undefined;
  }
}

/** The hit's shape: context flags and comm first, then the stack. */
export function detectionShape(hit: XrunHit): DetectionShape {
  const ctx = flagContext(hit.flags);
  if (ctx === 'hardirq' || ctx === 'nmi') return 'hardirq';
  if (IRQ_THREAD_COMM.test(hit.comm)) return 'irq-thread';
  if (ctx === 'softirq' || SOFTIRQ_THREAD_COMM.test(hit.comm)) return 'softirq';
  return shapeFromStack(hit.stack ?? []) ?? 'process';
}

/** The shape a stack alone shows (innermost first), or undefined when it says nothing. */
export function shapeFromStack(stack: readonly string[]): DetectionShape | undefined {
  // The outermost context decides: an IRQ thread's stack ends in irq_thread/kthread, a
  // syscall's in its entry; a hard IRQ nested in either shows its entry frames above them.
  let hard = false;
  for (const frame of stack) {
    if (THREADED_IRQ_FRAME.test(frame)) return hard ? 'hardirq' : 'irq-thread';
    if (SOFTIRQ_FRAME.test(frame)) return hard ? 'hardirq' : 'softirq';
    if (HARDIRQ_FRAME.test(frame)) hard = true;
    if (PROCESS_FRAME.test(frame)) return hard ? 'hardirq' : 'process';
  }
  return hard ? 'hardirq' : undefined;
}

/** The IRQ number of an IRQ thread's comm (`irq/33-snd_hda_` → 33), or undefined. */
export function irqOfThread(comm: string): number | undefined {
  const m = IRQ_THREAD_COMM.exec(comm);
  return m ? Number(m[1]) : undefined;
}
