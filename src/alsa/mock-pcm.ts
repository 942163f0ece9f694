// MOCK PCM (not a device): a simulated playback PCM on a virtual clock, for testing the write
// loop's exact event sequences without hardware. It drains `rate` frames per second of
// virtual time once started, underruns (state XRUN, -EPIPE, trigger timestamp = the moment
// the queue ran dry) when the writer falls behind, and lets tests script failures
// (-ESTRPIPE, -ENODEV, ...) on the next call of any operation. Every call is logged, unless
// `logCalls: false`: then a period costs no heap allocation here either, so an allocation
// count of the loop against the MOCK measures the loop alone (write-loop.alloc.test.ts).
// Times live in Float64Array slots for that reason (see write-loop.ts).
import { ERRNO, errnoName } from './alsa-error.js';
import { PCM_STATE } from './pcm-binding.js';
import type { PcmBinding, PcmStatus } from './pcm-binding.js';
import type { MonotonicClock } from './monotonic-clock.js';

/** A virtual CLOCK_MONOTONIC that only moves when told to (ns as exact integer Numbers). */
export class MockClock implements MonotonicClock {
  /** The virtual clock's readings are absolute: nowNs() 0 is monotonic 0. */
  readonly originNs = 0n;
  readonly #ns = new Float64Array(1);
  constructor(startNs = 1_000_000_000) {
    this.#ns[0] = startNs;
  }
  get ns(): number {
    return this.#ns[0]!;
  }
  readonly nowNs = (): number => this.#ns[0]!;
  readonly readNs = (into: Float64Array, slot: number): void => {
    into[slot] = this.#ns[0]!;
  };
  /** Moves time forward (never backward) by whole nanoseconds. */
  advance(ns: number): void {
    if (ns > 0) this.#ns[0] = this.#ns[0]! + Math.round(ns);
  }
  readonly sleepMs = (ms: number): void => this.advance(ms * 1e6);
  /** A virtual clock_nanosleep: moves time forward by `ns`. */
  readonly sleepNs = (ns: number): void => this.advance(ns);
}

const NS_PER_S = 1e9;

// Frame ↔ ns conversions split into whole seconds so no intermediate product passes 2^53
// (elapsed ns × rate does after ~3 minutes at 48 kHz): exact integer results, as BigInt gave.
/** Time `frames` take to play at `rate`, rounded down (or up with `ceil`). */
function nsFor(frames: number, rate: number, ceil: boolean): number {
  const s = Math.floor(frames / rate);
  const rest = ((frames - s * rate) * NS_PER_S) / rate;
  return s * NS_PER_S + (ceil ? Math.ceil(rest) : Math.floor(rest));
}

// Slots of MockPcm's times (ns on the clock).
const RUN_START = 0;
const TRIGGER = 1;
const NOW = 2;

export type MockOp =
  | 'availUpdate'
  | 'delay'
  | 'writei'
  | 'wait'
  | 'status'
  | 'recover'
  | 'resume'
  | 'prepare'
  | 'start'
  | 'drop';

export interface MockPcmOptions {
  clock: MockClock;
  rate: number;
  periodFrames: number;
  bufferFrames: number;
  device?: string;
  /** Virtual time each writei takes (ns); default 2 µs. */
  writeCostNs?: number;
  /** Record every call in `calls` (default); off for runs that must not allocate per call. */
  logCalls?: boolean;
}

/** The MOCK binding: implements PcmBinding on a MockClock. */
export class MockPcm implements PcmBinding {
  readonly device: string;
  /** Every call in order, e.g. `writei(64)=64`, `availUpdate=-EPIPE`, `recover(-EPIPE)=0`. */
  readonly calls: string[] = [];
  readonly #o: Required<MockPcmOptions>;
  readonly #script = new Map<MockOp, number[]>();
  #state: number = PCM_STATE.PREPARED;
  /** Frames written since the last prepare. */
  #appl = 0;
  /** RUN_START: when the stream last started; TRIGGER: its last state change; NOW: scratch. */
  readonly #t = new Float64Array(3);
  #closed = false;

  constructor(options: MockPcmOptions) {
    this.#o = { device: 'mock', writeCostNs: 2000, logCalls: true, ...options };
    this.device = this.#o.device;
  }

  /** The next call of `op` returns `rc` (a negative errno) instead of doing its work. */
  failNext(op: MockOp, rc: number): void {
    const q = this.#script.get(op) ?? [];
    q.push(rc);
    this.#script.set(op, q);
  }
  /** Simulates system suspend: the next calls see -ESTRPIPE until resumed or prepared. */
  suspend(): void {
    this.#state = PCM_STATE.SUSPENDED;
  }
  /** Simulates an unplugged device: every later call sees -ENODEV. */
  disconnect(): void {
    this.#state = PCM_STATE.DISCONNECTED;
  }
  get closed(): boolean {
    return this.#closed;
  }

  #scripted(op: MockOp): number | undefined {
    const q = this.#script.get(op);
    const rc = q?.shift();
    if (rc !== undefined) this.#log(op, rc);
    return rc;
  }
  // `arg` is the call's argument as the log shows it (`writei(64)`); the text is only built
  // when calls are logged.
  #log(op: string, rc: number, arg?: number | string): number {
    if (!this.#o.logCalls) return rc;
    const call = arg === undefined ? op : `${op}(${arg})`;
    this.calls.push(`${call}=${rc < 0 ? `-${errnoName(rc)}` : rc}`);
    return rc;
  }
  // Frames the simulated hardware has played since the stream started (rounded down).
  #played(): number {
    const t = this.#t;
    this.#o.clock.readNs(t, NOW);
    const ns = t[NOW]! - t[RUN_START]!;
    const rate = this.#o.rate;
    const s = Math.floor(ns / NS_PER_S);
    return s * rate + Math.floor(((ns - s * NS_PER_S) * rate) / NS_PER_S);
  }
  // Advances the simulated hardware pointer to the clock; running dry is an XRUN.
  #update(): void {
    if (this.#state !== PCM_STATE.RUNNING) return;
    if (this.#played() >= this.#appl) {
      this.#state = PCM_STATE.XRUN;
      this.#t[TRIGGER] = this.#t[RUN_START]! + nsFor(this.#appl, this.#o.rate, false);
    }
  }
  #startRunning(): void {
    this.#state = PCM_STATE.RUNNING;
    this.#o.clock.readNs(this.#t, RUN_START);
    this.#t[TRIGGER] = this.#t[RUN_START]!;
  }
  #stateError(): number {
    switch (this.#state) {
      case PCM_STATE.XRUN:
        return -ERRNO.EPIPE;
      case PCM_STATE.SUSPENDED:
        return -ERRNO.ESTRPIPE;
      case PCM_STATE.DISCONNECTED:
        return -ERRNO.ENODEV;
      default:
        return 0;
    }
  }
  #avail(): number {
    const played = this.#state === PCM_STATE.RUNNING ? Math.min(this.#played(), this.#appl) : 0;
    return this.#o.bufferFrames - (this.#appl - played);
  }

  availUpdate(): number {
    const s = this.#scripted('availUpdate');
    if (s !== undefined) return s;
    this.#update();
    const err = this.#stateError();
    return this.#log('availUpdate', err < 0 ? err : this.#avail());
  }

  delay(): number {
    const s = this.#scripted('delay');
    if (s !== undefined) return s;
    this.#update();
    const err = this.#stateError();
    return this.#log('delay', err < 0 ? err : this.#o.bufferFrames - this.#avail());
  }

  writei(_buffer: Buffer, frames: number): number {
    const s = this.#scripted('writei');
    if (s !== undefined) return s;
    this.#update();
    const err = this.#stateError();
    if (err < 0) return this.#log('writei', err, frames);
    const avail = this.#avail();
    if (avail <= 0) return this.#log('writei', -ERRNO.EAGAIN, frames);
    const n = Math.min(frames, avail);
    this.#appl += n;
    this.#o.clock.advance(this.#o.writeCostNs);
    if (this.#state === PCM_STATE.PREPARED && this.#appl >= this.#o.bufferFrames) {
      this.#startRunning();
    }
    return this.#log('writei', n, frames);
  }

  wait(timeoutMs: number): number {
    const s = this.#scripted('wait');
    if (s !== undefined) return s;
    this.#update();
    const err = this.#stateError();
    if (err < 0) return this.#log('wait', err);
    const avail = this.#avail();
    if (avail >= this.#o.periodFrames) return this.#log('wait', 1);
    const timeoutNs = Math.round(timeoutMs * 1e6);
    if (this.#state !== PCM_STATE.RUNNING) {
      this.#o.clock.advance(timeoutNs);
      return this.#log('wait', 0);
    }
    // Wake when the hardware pointer has freed one period (as a period interrupt would):
    // nsFor(targetPlayed, rate, true) after the start, written out so no large Number is
    // returned from a call (that would box it).
    const targetPlayed = this.#appl - (this.#o.bufferFrames - this.#o.periodFrames);
    const rate = this.#o.rate;
    const secs = Math.floor(targetPlayed / rate);
    const t = this.#t;
    this.#o.clock.readNs(t, NOW);
    const untilWakeNs =
      t[RUN_START]! +
      secs * NS_PER_S +
      Math.ceil(((targetPlayed - secs * rate) * NS_PER_S) / rate) -
      t[NOW]!;
    if (untilWakeNs > timeoutNs) {
      this.#o.clock.advance(timeoutNs);
      return this.#log('wait', 0);
    }
    this.#o.clock.advance(untilWakeNs);
    return this.#log('wait', 1);
  }

  status(): PcmStatus | number {
    const s = this.#scripted('status');
    if (s !== undefined) return s;
    this.#update();
    this.#log('status', this.#state);
    const avail = this.#avail();
    return {
      state: this.#state,
      triggerNs: BigInt(this.#t[TRIGGER]!),
      nowNs: BigInt(this.#o.clock.nowNs()),
      avail,
      delay: this.#o.bufferFrames - avail,
    };
  }

  recover(err: number): number {
    const s = this.#scripted('recover');
    if (s !== undefined) return s;
    const arg = `-${errnoName(err)}`;
    if (this.#state === PCM_STATE.DISCONNECTED) return this.#log('recover', -ERRNO.ENODEV, arg);
    if (err === -ERRNO.EPIPE || err === -ERRNO.ESTRPIPE || err === -ERRNO.EINTR) {
      this.#reset();
      return this.#log('recover', 0, arg);
    }
    return this.#log('recover', err, arg);
  }

  resume(): number {
    const s = this.#scripted('resume');
    if (s !== undefined) return s;
    if (this.#state !== PCM_STATE.SUSPENDED) return this.#log('resume', -ERRNO.EBADFD);
    this.#reset();
    return this.#log('resume', 0);
  }

  prepare(): number {
    const s = this.#scripted('prepare');
    if (s !== undefined) return s;
    if (this.#state === PCM_STATE.DISCONNECTED) return this.#log('prepare', -ERRNO.ENODEV);
    this.#reset();
    return this.#log('prepare', 0);
  }

  start(): number {
    const s = this.#scripted('start');
    if (s !== undefined) return s;
    if (this.#state !== PCM_STATE.PREPARED) return this.#log('start', -ERRNO.EBADFD);
    this.#startRunning();
    return this.#log('start', 0);
  }

  state(): number {
    this.#update();
    return this.#state;
  }

  drop(): number {
    const s = this.#scripted('drop');
    if (s !== undefined) return s;
    this.#state = PCM_STATE.SETUP;
    return this.#log('drop', 0);
  }

  close(): void {
    this.#closed = true;
  }

  strerror(err: number): string {
    return `mock ${errnoName(err)}`;
  }

  #reset(): void {
    this.#state = PCM_STATE.PREPARED;
    this.#appl = 0;
    this.#t[RUN_START] = 0;
  }
}
