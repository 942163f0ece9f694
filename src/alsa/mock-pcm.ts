// MOCK PCM (not a device): a simulated playback PCM on a virtual clock, for testing the write
// loop's exact event sequences without hardware. It drains `rate` frames per second of
// virtual time once started, underruns (state XRUN, -EPIPE, trigger timestamp = the moment
// the queue ran dry) when the writer falls behind, and lets tests script failures
// (-ESTRPIPE, -ENODEV, ...) on the next call of any operation. Every call is logged.
import { ERRNO, errnoName } from './alsa-error.js';
import { PCM_STATE } from './pcm-binding.js';
import type { PcmBinding, PcmStatus } from './pcm-binding.js';

/** A virtual CLOCK_MONOTONIC that only moves when told to. */
export class MockClock {
  ns: bigint;
  constructor(startNs = 1_000_000_000n) {
    this.ns = startNs;
  }
  readonly now = (): bigint => this.ns;
  /** Moves time forward (never backward). */
  advance(ns: bigint): void {
    if (ns > 0n) this.ns += ns;
  }
  readonly sleepMs = (ms: number): void => this.advance(BigInt(Math.round(ms * 1e6)));
}

export type MockOp =
  | 'availUpdate'
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
  writeCostNs?: bigint;
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
  #runStartNs = 0n;
  #triggerNs = 0n;
  #closed = false;

  constructor(options: MockPcmOptions) {
    this.#o = { device: 'mock', writeCostNs: 2000n, ...options };
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
  #log(call: string, rc: number): number {
    this.calls.push(`${call}=${rc < 0 ? `-${errnoName(rc)}` : rc}`);
    return rc;
  }
  #played(now: bigint): number {
    return Number(((now - this.#runStartNs) * BigInt(this.#o.rate)) / 1_000_000_000n);
  }
  // Advances the simulated hardware pointer to the clock; running dry is an XRUN.
  #update(): void {
    if (this.#state !== PCM_STATE.RUNNING) return;
    const now = this.#o.clock.now();
    if (this.#played(now) >= this.#appl) {
      this.#state = PCM_STATE.XRUN;
      this.#triggerNs =
        this.#runStartNs + (BigInt(this.#appl) * 1_000_000_000n) / BigInt(this.#o.rate);
    }
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
    const played =
      this.#state === PCM_STATE.RUNNING
        ? Math.min(this.#played(this.#o.clock.now()), this.#appl)
        : 0;
    return this.#o.bufferFrames - (this.#appl - played);
  }

  availUpdate(): number {
    const s = this.#scripted('availUpdate');
    if (s !== undefined) return s;
    this.#update();
    const err = this.#stateError();
    return this.#log('availUpdate', err < 0 ? err : this.#avail());
  }

  writei(_buffer: Buffer, frames: number): number {
    const s = this.#scripted('writei');
    if (s !== undefined) return s;
    this.#update();
    const err = this.#stateError();
    if (err < 0) return this.#log(`writei(${frames})`, err);
    const avail = this.#avail();
    if (avail <= 0) return this.#log(`writei(${frames})`, -ERRNO.EAGAIN);
    const n = Math.min(frames, avail);
    this.#appl += n;
    this.#o.clock.advance(this.#o.writeCostNs);
    if (this.#state === PCM_STATE.PREPARED && this.#appl >= this.#o.bufferFrames) {
      this.#state = PCM_STATE.RUNNING;
      this.#runStartNs = this.#o.clock.now();
      this.#triggerNs = this.#runStartNs;
    }
    return this.#log(`writei(${frames})`, n);
  }

  wait(timeoutMs: number): number {
    const s = this.#scripted('wait');
    if (s !== undefined) return s;
    this.#update();
    const err = this.#stateError();
    if (err < 0) return this.#log('wait', err);
    const avail = this.#avail();
    if (avail >= this.#o.periodFrames) return this.#log('wait', 1);
    const timeoutNs = BigInt(Math.round(timeoutMs * 1e6));
    if (this.#state !== PCM_STATE.RUNNING) {
      this.#o.clock.advance(timeoutNs);
      return this.#log('wait', 0);
    }
    // Wake when the hardware pointer has freed one period (as a period interrupt would).
    const targetPlayed = this.#appl - (this.#o.bufferFrames - this.#o.periodFrames);
    const rate = BigInt(this.#o.rate);
    const wakeNs = this.#runStartNs + (BigInt(targetPlayed) * 1_000_000_000n + rate - 1n) / rate;
    const now = this.#o.clock.now();
    if (wakeNs - now > timeoutNs) {
      this.#o.clock.advance(timeoutNs);
      return this.#log('wait', 0);
    }
    this.#o.clock.advance(wakeNs - now);
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
      triggerNs: this.#triggerNs,
      nowNs: this.#o.clock.now(),
      avail,
      delay: this.#o.bufferFrames - avail,
    };
  }

  recover(err: number): number {
    const s = this.#scripted('recover');
    if (s !== undefined) return s;
    const call = `recover(-${errnoName(err)})`;
    if (this.#state === PCM_STATE.DISCONNECTED) return this.#log(call, -ERRNO.ENODEV);
    if (err === -ERRNO.EPIPE || err === -ERRNO.ESTRPIPE || err === -ERRNO.EINTR) {
      this.#reset();
      return this.#log(call, 0);
    }
    return this.#log(call, err);
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
    this.#state = PCM_STATE.RUNNING;
    this.#runStartNs = this.#o.clock.now();
    this.#triggerNs = this.#runStartNs;
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
    this.#runStartNs = 0n;
  }
}
