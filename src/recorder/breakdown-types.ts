// The shapes shared by the flight recorder (src/kernel/recorder-source.ts: the tracefs IO shell)
// and the per-XRUN latency breakdown (src/recorder/: pure, text and numbers in, parts out).
// Modelled on rtla timerlat's auto-analysis (tools/tracing/rtla/src/timerlat_aa.c): one lateness
// split into net parts that add up to 100 %, with the blocking task named.

/** One ftrace event line from the recorder instance, parsed (times in seconds of the trace clock). */
export interface TraceEvent {
  /** CPU the event was recorded on. */
  cpu: number;
  /** Trace clock time in seconds (`mono` clock in the recorder instance). */
  ts: number;
  /** Current task when the event was recorded: comm as ftrace prints it (15 chars max), pid. */
  comm: string;
  pid: number;
  /** The latency flags column (`d.h1.`, `dNh2.`, `D..1.`; 4–7 chars by kernel era). */
  flags: string;
  /** Event name: sched_switch, sched_waking, sched_wakeup, irq_handler_entry, irq_handler_exit,
   * softirq_entry, softirq_exit, hrtimer_expire_entry, hrtimer_expire_exit, or the xrun probe's name. */
  name: string;
  /** The event's `key=value` fields as printed (prev_comm, next_pid, irq, name, vec, action, …). */
  fields: Readonly<Record<string, string>>;
  /** Frames of a `<stack trace>` block that followed the event (innermost first), when there was one. */
  stack?: readonly string[];
}

/** The XRUN the breakdown explains: the probe hit as the recorder saw it. */
export interface XrunHit {
  cpu: number;
  ts: number;
  /** The task that detected the XRUN (an IRQ thread, the audio server in an ioctl, ksoftirqd, …). */
  comm: string;
  pid: number;
  flags: string;
  /** The detection stack from the hit's stacktrace trigger (innermost first), when recorded. */
  stack?: readonly string[];
}

/** What the breakdown knows about the stream besides the trace. */
export interface StreamTiming {
  /** Seconds per period and per buffer (from the granted hw params). */
  periodSeconds: number;
  bufferSeconds: number;
  /** Threads known to write this stream (e.g. `xrunhunt play`'s worker tid, the owner pid's threads). */
  writerPids?: readonly number[];
  /** The sound card's interrupt names as irq_handler_entry prints them (`snd_hda_intel:card0`). */
  irqNames?: readonly string[];
}

/** How the kernel came to detect the XRUN, from the hit's context and stack. */
export type DetectionShape =
  /** In the period interrupt itself (hard IRQ context). */
  | 'hardirq'
  /** In a threaded interrupt handler (`irq/N-…`: threadirqs, PREEMPT_RT). */
  | 'irq-thread'
  /** In a softirq or its thread (snd-dummy's hrtimer, ksoftirqd, PREEMPT_RT's ktimers). */
  | 'softirq'
  /** In a task's own system call (HWSYNC/STATUS/DELAY/write: timer-scheduled playback). */
  | 'process';

/** One net share of the lateness. */
export interface BreakdownPart {
  kind:
    | 'irq-latency' // the period interrupt came late (interrupts off somewhere)
    | 'irq' // a hard interrupt handler ran (interference), named by handler
    | 'softirq' // a softirq ran (interference), named by vector
    | 'task' // another task held the CPU while the late thread was runnable
    | 'idle-exit' // the CPU was idle while the late thread was runnable (exit from idle, hardware)
    | 'own-run' // the late thread itself was running (its own processing)
    | 'sleep' // the late thread was asleep and nobody woke it (the application chose to wait)
    | 'unexplained'; // no event covers the time
  /** Handler, vector, comm of the task, or a plain label. */
  name: string;
  pid?: number;
  /** Kernel priority as ftrace prints it (prio < 100: real-time; 120: nice 0). */
  prio?: number;
  cpu?: number;
  /** Net milliseconds (nested interrupts subtracted from what they interrupted). */
  ms: number;
  /** ms / lateness; all parts together are 1 (within rounding). */
  share: number;
  /** Kernel stack of the blocker, when the recorder has one (innermost first). */
  stack?: readonly string[];
}

/** The verdict class of one breakdown (the largest part decides it). */
export type BreakdownClass =
  | 'irq-latency' // interrupts were off: the period interrupt came late
  | 'blocked-by-task' // another task kept the late thread off the CPU
  | 'interference' // hard IRQ / softirq handlers took the time
  | 'woken-late' // runnable but the CPU stayed idle or nothing explains it
  | 'application-late'; // the thread slept or ran too long: no kernel code to blame

/** The latency breakdown of one XRUN. */
export interface XrunBreakdown {
  /** Trace-clock time of the hit it explains. */
  ts: number;
  shape: DetectionShape;
  /** The detecting task. */
  detector: { comm: string; pid: number; cpu: number };
  /** The thread whose lateness caused the XRUN (may be the detector). */
  late: {
    comm: string;
    pid: number;
    role: 'irq-thread' | 'softirq-thread' | 'writer' | 'detector';
  };
  /** When the late thread should have done its work (trace clock, s) and the lateness (ms). */
  dueTs: number;
  latenessMs: number;
  parts: BreakdownPart[];
  cls: BreakdownClass;
  /** The top part, said plainly ("blocked by dd (pid 179, prio 120) for 2.1 ms of 2.7 ms"). */
  summary: string;
  /** False when events were missing (window not covered, lost events); `missing` says what. */
  complete: boolean;
  missing?: string;
  /**
   * The late writer’s own sleep, when that is what made the XRUN: it
   * slept in its own code — woken by its own timer, not by the device — across the time it had
   * to write. Absent for every other breakdown.
   */
  ownSleep?: {
    /**
     * The stall's length as the kernel timed it (ms): from the start of its sleep (the arming of
     * its own timer when recorded, else its switch-out) to its wake-up.
     */
    ms: number;
    /** The timer that woke it, as hrtimer_expire_entry prints it (`hrtimer_wakeup`). */
    wokenBy: string;
    /** True when it woke after the XRUN was detected (the window reaches past the hit). */
    wokeAfterHit: boolean;
    /** The length it asked for (its own hrtimer_start → soft expiry, ms), when recorded. */
    askedMs?: number;
    /** How long after the time it asked for its timer expired (ms), when recorded. */
    timerLateMs?: number;
  };
}
