// The playback engine's public vocabulary: what the session asks for and every event it gets
// back. Plain data only (it crosses the worker boundary through postMessage).
import type { GrantedParams, HwPcm, WakeupGrant, WakeupMode } from '../alsa/pcm-binding.js';
import type { HistogramSummary } from './latency-histogram.js';
import type { StallPlan } from './stall-plan.js';
import type { ThreadUsage } from './thread-usage.js';

export type {
  GrantedParams,
  HwPcm,
  HistogramSummary,
  StallPlan,
  ThreadUsage,
  WakeupGrant,
  WakeupMode,
};

export type SignalKind = 'silence' | 'sine';

/** What to play and how (the device may grant other values: see `started.granted`). */
export interface PlaybackOptions {
  /** ALSA device name: `default`, `plug:jack`, `hw:CARD=Dummy,DEV=0`, `null`. */
  device: string;
  rate: number;
  channels: number;
  /** ALSA format name, e.g. `S16_LE`. */
  format: string;
  periodFrames: number;
  periods: number;
  /** Stop after this long (ms); null plays until stop() or the abort signal. */
  durationMs: number | null;
  signal: SignalKind;
  /** SCHED_FIFO priority 1–99 for the writer thread; 0 = normal scheduling. */
  rtPriority: number;
  /** Pin the writer thread to this CPU; null = no pin. */
  cpu: number | null;
  /** Deliberate writer stalls (self-test); null = none. */
  injectStall: StallPlan | null;
  /** Interval of `stats` events (ms); tuned to 1 s, the dashboard's refresh. */
  statsIntervalMs?: number;
  /**
   * Who wakes the writer: `period` (default) waits for the period interrupt like aplay/JACK;
   * `timer` turns period interrupts off where the device can and sleeps on its own clock,
   * like PipeWire's default desktop mode.
   */
  wakeup?: WakeupMode;
}

/** The writer thread's scheduling, read back after the request. */
export interface PolicyReport {
  policy: string;
  priority: number;
  /** Kernel thread id of the writer (for /proc/<pid>/task/<tid> and trace correlation). */
  tid: number;
  cpu: number | null;
  requestedPriority: number;
}

/** One underrun, timed with CLOCK_MONOTONIC so it lines up with kernel printk timestamps. */
export interface XrunEvent {
  /** Seconds since playback started (when the stream first ran). */
  time: number;
  /** ms since playback started, at detection. */
  ms: number;
  /** CLOCK_MONOTONIC ns at detection (same clock as printk's timestamps, as a decimal string in JSON). */
  monotonicNs: bigint;
  /** CLOCK_MONOTONIC ns when the audio ran out (trigger timestamp, or estimated from the last write). */
  startNs: bigint;
  /** How the start was obtained: the device's trigger timestamp, or queued audio at the last write. */
  startSource: 'trigger' | 'estimate';
  /** How long the output was silent: underrun start → audio running again. Never negative. */
  durationMs: number;
  /** Frames written before the underrun. */
  framesWritten: number;
  /** Which call reported it (`snd_pcm_avail_update`, `snd_pcm_writei`, `snd_pcm_wait`). */
  detectedBy: string;
  /** Whether an injected stall preceded it (self-test). */
  injected: boolean;
}

/** Once per statsInterval: counters since start plus the interval's extremes. */
export interface StatsEvent {
  seconds: number;
  frames: number;
  xruns: number;
  /** Smallest headroom seen in this interval (µs); null if no write happened. */
  minHeadroomUs: number | null;
  /** Longest write call in this interval (µs). */
  maxWriteUs: number | null;
  writes: number;
}

export interface StartedEvent {
  device: string;
  granted: GrantedParams;
  policy: PolicyReport;
  hwPcm: HwPcm | null;
  /** libasound PCM type of the opened device (`PLUG`, `HW`, `NULL`, ...). */
  pcmType: string;
  /** How the writer is woken, as the device allowed it. */
  wakeup: WakeupGrant;
  /** CLOCK_MONOTONIC ns at the start of the write loop. */
  startNs: bigint;
}

export interface WarningEvent {
  code:
    | 'rt-denied'
    | 'thread-name'
    | 'cpu-pin'
    | 'suspended'
    | 'wait-timeout'
    | 'timestamps'
    | 'wakeup';
  message: string;
}

export type EndReason = 'duration' | 'stopped' | 'device-gone' | 'error';

export interface PlaybackSummary {
  device: string;
  granted: GrantedParams | null;
  policy: PolicyReport | null;
  hwPcm: HwPcm | null;
  /** How the writer was woken (null if the device never got configured). */
  wakeup: WakeupGrant | null;
  endReason: EndReason;
  /** Set when endReason is device-gone or error. */
  error: { op: string; errno: number; message: string } | null;
  frames: number;
  seconds: number;
  xruns: XrunEvent[];
  stallsInjected: number;
  histograms: { headroomUs: HistogramSummary; writeUs: HistogramSummary };
  /** The writer thread's own CPU time and page faults during the loop (null if unreadable). */
  writerThread: ThreadUsage | null;
}

/** Typed event map of a playback handle. */
export interface PlaybackEvents {
  started: [StartedEvent];
  xrun: [XrunEvent];
  stats: [StatsEvent];
  warning: [WarningEvent];
  ended: [PlaybackSummary];
}
