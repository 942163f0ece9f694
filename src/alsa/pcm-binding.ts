// The contract between the playback engine and a PCM: the real one (alsa-pcm.ts, libasound
// through koffi) and the scripted MOCK (mock-pcm.ts) implement it. Hot-path calls return
// libasound's convention — a frame count or a NEGATIVE errno — and never throw, so the
// write loop branches on numbers without allocating exceptions.

/** snd_pcm_state_t values (alsa/pcm.h). */
export const PCM_STATE = {
  OPEN: 0,
  SETUP: 1,
  PREPARED: 2,
  RUNNING: 3,
  XRUN: 4,
  DRAINING: 5,
  PAUSED: 6,
  SUSPENDED: 7,
  DISCONNECTED: 8,
} as const;

export type PcmStateName = keyof typeof PCM_STATE;

const STATE_NAMES = Object.keys(PCM_STATE) as PcmStateName[];

/** Names a snd_pcm_state_t value for reports (`4` → `XRUN`). */
export function pcmStateName(state: number): PcmStateName | `UNKNOWN(${number})` {
  return STATE_NAMES[state] ?? `UNKNOWN(${state})`;
}

/** What snd_pcm_status() reports, timestamps as CLOCK_MONOTONIC nanoseconds (0n = not set). */
export interface PcmStatus {
  state: number;
  /** When the stream last changed state (started, stopped by XRUN, ...). */
  triggerNs: bigint;
  /** When this status was taken. */
  nowNs: bigint;
  avail: number;
  delay: number;
}

/** What the device granted after negotiation (the `_near` calls may change every request). */
export interface GrantedParams {
  rate: number;
  channels: number;
  /** ALSA format name, e.g. `S16_LE`. */
  format: string;
  periodFrames: number;
  bufferFrames: number;
  /** Bytes per frame (channels × physical sample width). */
  frameBytes: number;
}

/** Who wakes the writer: the device's period interrupts (snd_pcm_wait) or its own timer. */
export type WakeupMode = 'period' | 'timer';

/** How the device was set up for the requested wake-up mode, and why (reports show it). */
export interface WakeupGrant {
  requested: WakeupMode;
  /**
   * What the device does about period interrupts: `period-interrupts` (the period mode),
   * `no-period-wakeup` (timer mode, snd_pcm_hw_params_set_period_wakeup(0): the device raises
   * none), `avail-min-buffer` (timer mode on a device that cannot turn them off: it still
   * raises them, only the writer's poll wake-ups are off — period_event 0, avail_min = buffer).
   */
  method: 'period-interrupts' | 'no-period-wakeup' | 'avail-min-buffer';
  /** Whether the device still raises an interrupt (or its plugin a wake-up) every period. */
  periodInterrupts: boolean;
  /** One sentence: what was asked, what the device offered. */
  reason: string;
}

/** The hardware PCM under a plugin chain: the stream whose /proc/asound xrun_debug matters. */
export interface HwPcm {
  card: number;
  device: number;
  subdevice: number;
  stream: 'p' | 'c';
  /** `pcmC<card>D<device>p`, the kernel's name in XRUN lines and /proc/asound. */
  kernelName: string;
  name: string;
  id: string;
}

/** The synchronous operations the write loop performs on an open, configured PCM. */
export interface PcmBinding {
  readonly device: string;
  /** Frames writable now, or -errno (-EPIPE after an underrun). */
  availUpdate(): number;
  /**
   * snd_pcm_delay(): frames queued ahead of the DAC after syncing the hardware pointer (the
   * HWSYNC/DELAY ioctl: where the kernel detects an underrun of a stream without period
   * interrupts), or -errno. Never negative otherwise (a plugin's negative delay reads as 0).
   */
  delay(): number;
  /** Writes `frames` interleaved frames from `buffer`; frames written or -errno (-EAGAIN when full). */
  writei(buffer: Buffer, frames: number): number;
  /** Waits up to timeoutMs for room: 1 ready, 0 timeout, -errno. */
  wait(timeoutMs: number): number;
  /** snd_pcm_status(); a negative number is -errno. */
  status(): PcmStatus | number;
  /** snd_pcm_recover(): prepares after -EPIPE, resumes after -ESTRPIPE; 0 or -errno. */
  recover(err: number): number;
  /** snd_pcm_resume(): 0, -EAGAIN (not yet), -ENOSYS (use prepare) or -errno. */
  resume(): number;
  prepare(): number;
  start(): number;
  state(): number;
  drop(): number;
  close(): void;
  /** snd_strerror() for a (negative) errno. */
  strerror(err: number): string;
}
