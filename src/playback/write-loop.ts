// The write loop as a state machine over an injected PcmBinding and clock: fill the buffer,
// wait for a period of room (period mode: snd_pcm_wait on the period interrupt; timer mode:
// sleep on the clock until the hardware pointer should have freed a period, then
// snd_pcm_delay, the call in which the kernel detects an underrun of such a stream), write,
// measure; on errors: -EAGAIN → wait, -EPIPE → xrun event +
// recover, -ESTRPIPE → resume (or prepare), -ENODEV/-EBADFD → device gone, others → fail.
// It runs synchronously inside the worker; tests drive it with the scripted MOCK binding.
// Allocation-free per period (write-loop.alloc.test.ts proves it): times are integer Numbers
// of ns from a MonotonicClock (no BigInt), the numbers that change every period and that the
// error paths read live in a Float64Array (a closure-captured `let` gets a fresh heap box on
// every non-small-integer assignment), and objects are made only for events: once a second
// for stats, once per xrun, warning or stall.
import type { GrantedParams, PcmBinding, PcmStatus, WakeupMode } from '../alsa/pcm-binding.js';
import type { MonotonicClock } from '../alsa/monotonic-clock.js';
import { PCM_STATE } from '../alsa/pcm-binding.js';
import { ERRNO, errnoName } from '../alsa/alsa-error.js';
import type { Histogram } from './latency-histogram.js';
import { createUsHistogram } from './latency-histogram.js';
import type { StallPlan } from './stall-plan.js';
import { stallDueMs } from './stall-plan.js';
import { computeXrunTiming } from './xrun-timing.js';
import { timerPacing, timerSleepNs } from './timer-pacing.js';
import type { EndReason, StatsEvent, WarningEvent, XrunEvent } from './types.js';

export interface WriteLoopConfig {
  granted: GrantedParams;
  /** Stop after this long (ns); null = until shouldStop(). */
  durationNs: number | null;
  stalls: StallPlan | null;
  statsIntervalNs: number;
  /** Longest single snd_pcm_wait (ms): a device that stops ticking is reported, not waited on forever. */
  waitTimeoutMs: number;
  /** Who wakes the writer: snd_pcm_wait (period interrupts, default) or its own timer. */
  wakeup?: WakeupMode;
}

export interface WriteLoopDeps {
  pcm: PcmBinding;
  /** CLOCK_MONOTONIC (openMonotonicClock in the worker; the MOCK's virtual clock in tests). */
  clock: MonotonicClock;
  /** Blocks the calling thread (injected stalls, waiting for a resume). */
  sleepMs(ms: number): void;
  shouldStop(): boolean;
  /** The next period of audio (signal generator); called once per write. */
  nextPeriod(): Buffer;
  emit(event: LoopEvent): void;
}

export type LoopEvent =
  | { type: 'xrun'; xrun: XrunEvent }
  | { type: 'stats'; stats: StatsEvent }
  | { type: 'warning'; warning: WarningEvent }
  | { type: 'stall'; index: number; ms: number };

export interface LoopResult {
  endReason: EndReason;
  error: { op: string; errno: number; message: string } | null;
  /** Absolute CLOCK_MONOTONIC ns when the loop started and ended. */
  startNs: bigint;
  endNs: bigint;
  frames: number;
  xruns: XrunEvent[];
  stallsInjected: number;
  headroomUs: Histogram;
  writeUs: Histogram;
}

interface PendingXrun {
  /** Clock ns (relative to the clock's origin, like every time inside the loop). */
  detectNs: number;
  detectedBy: string;
  status: PcmStatus | null;
  lastWriteNs: number | null;
  queuedAfterLastWrite: number;
  framesWritten: number;
  injected: boolean;
}

// How long a suspended device may take to resume before we prepare it instead (ms, polled
// every RESUME_POLL_MS): laptops take up to a few seconds after resume from sleep.
const RESUME_LIMIT_MS = 5000;
const RESUME_POLL_MS = 50;

// Slots of the loop's hot numbers (see the header): frames written, when the last write
// returned (NaN before the first one), and the clock readings of the current period.
const FRAMES = 0;
const LAST_WRITE_NS = 1;
const LOOP_NS = 2;
const WRITE_START_NS = 3;
const WRITE_END_NS = 4;
// Timer mode: when the writer last made progress (wrote, or the stream was (re)started).
const PROGRESS_NS = 5;
const HOT_SLOTS = 6;

/** Runs the loop until the duration, a stop request, or a fatal error; returns what happened. */
export function runWriteLoop(config: WriteLoopConfig, deps: WriteLoopDeps): LoopResult {
  const { pcm, clock, emit } = deps;
  const { rate, periodFrames, bufferFrames } = config.granted;
  const headroomUs = createUsHistogram();
  const writeUs = createUsHistogram();
  const xruns: XrunEvent[] = [];
  const startNs = clock.nowNs();
  const hot = new Float64Array(HOT_SLOTS);
  hot[LAST_WRITE_NS] = NaN;
  hot[PROGRESS_NS] = startNs;
  const timer = config.wakeup === 'timer';
  const pacing = timer ? timerPacing(config.granted) : null;
  const waitTimeoutNs = config.waitTimeoutMs * 1e6;
  // Frames written since the last prepare, up to bufferFrames (bounded so it stays a small
  // integer): the stream runs once the buffer has been filled.
  let sincePrepare = 0;
  let queuedAfterLastWrite = 0;
  let pending: PendingXrun | null = null;
  let stallsInjected = 0;
  let stalledSinceWrite = false;
  let warnedTimeout = false;
  let nextStatsNs = startNs + config.statsIntervalNs;
  let intervalMinHeadroom: number | null = null;
  let intervalMaxWrite: number | null = null;
  let intervalWrites = 0;

  // Loop times are ns from the clock's origin; reports carry absolute CLOCK_MONOTONIC BigInts.
  const absoluteNs = (ns: number): bigint => clock.originNs + BigInt(ns);

  const finish = (endReason: EndReason, error: LoopResult['error'] = null): LoopResult => {
    const endNs = clock.nowNs();
    if (pending) settleXrun(endNs);
    return {
      endReason,
      error,
      startNs: absoluteNs(startNs),
      endNs: absoluteNs(endNs),
      frames: hot[FRAMES]!,
      xruns,
      stallsInjected,
      headroomUs,
      writeUs,
    };
  };

  const settleXrun = (resumeNs: number): void => {
    if (!pending) return;
    const p = pending;
    pending = null;
    const timing = computeXrunTiming({
      detectNs: absoluteNs(p.detectNs),
      resumeNs: absoluteNs(resumeNs),
      triggerNs: p.status?.triggerNs ?? 0n,
      statusIsXrun: p.status?.state === PCM_STATE.XRUN,
      lastWriteNs: p.lastWriteNs === null ? null : absoluteNs(p.lastWriteNs),
      queuedAfterLastWrite: p.queuedAfterLastWrite,
      rate,
    });
    const sinceStartUs = wholeUs(p.detectNs - startNs);
    const xrun: XrunEvent = {
      time: sinceStartUs / 1e6,
      ms: sinceStartUs / 1000,
      monotonicNs: absoluteNs(p.detectNs),
      startNs: timing.startNs,
      startSource: timing.startSource,
      durationMs: timing.durationMs,
      framesWritten: p.framesWritten,
      detectedBy: p.detectedBy,
      injected: p.injected,
    };
    xruns.push(xrun);
    emit({ type: 'xrun', xrun });
  };

  const fail = (op: string, rc: number, reason: EndReason = 'error'): LoopResult => {
    const errno = -rc;
    const gone = reason === 'device-gone';
    const message = gone
      ? `the playback device "${pcm.device}" went away during ${op} (${errnoName(errno)}: ${pcm.strerror(rc)}) — unplugged, or its driver or server (JACK) stopped`
      : `${op} on "${pcm.device}" failed: ${pcm.strerror(rc)} (${errnoName(errno)})`;
    return finish(reason, { op, errno, message });
  };

  // One underrun: note it, recover, and let the next full buffer close it.
  const onXrun = (op: string): LoopResult | null => {
    const detectNs = clock.nowNs();
    const st = pcm.status();
    if (!pending) {
      const lastWriteNs = hot[LAST_WRITE_NS]!;
      pending = {
        detectNs,
        detectedBy: op,
        status: typeof st === 'number' ? null : st,
        lastWriteNs: Number.isNaN(lastWriteNs) ? null : lastWriteNs,
        queuedAfterLastWrite,
        framesWritten: hot[FRAMES]!,
        injected: stalledSinceWrite,
      };
    }
    const rc = pcm.recover(-ERRNO.EPIPE);
    if (rc < 0) return handleError('snd_pcm_recover', rc, true);
    sincePrepare = 0;
    return null;
  };

  const onSuspend = (): LoopResult | null => {
    emit({
      type: 'warning',
      warning: {
        code: 'suspended',
        message: `"${pcm.device}" was suspended (system sleep); resuming`,
      },
    });
    let waited = 0;
    let rc = pcm.resume();
    while (rc === -ERRNO.EAGAIN && waited < RESUME_LIMIT_MS && !deps.shouldStop()) {
      deps.sleepMs(RESUME_POLL_MS);
      waited += RESUME_POLL_MS;
      rc = pcm.resume();
    }
    if (rc < 0) rc = pcm.prepare();
    if (rc < 0) return handleError('snd_pcm_prepare', rc, true);
    sincePrepare = 0;
    return null;
  };

  // Returns a final result for fatal errors, null when the loop may continue.
  const handleError = (op: string, rc: number, afterRecovery = false): LoopResult | null => {
    const errno = -rc;
    if (errno === ERRNO.EAGAIN || errno === ERRNO.EINTR) return null;
    if (errno === ERRNO.ENODEV || errno === ERRNO.EBADFD) return fail(op, rc, 'device-gone');
    if (afterRecovery) return fail(op, rc);
    if (errno === ERRNO.EPIPE) return onXrun(op);
    if (errno === ERRNO.ESTRPIPE) return onSuspend();
    return fail(op, rc);
  };

  const emitStats = (now: number): void => {
    emit({
      type: 'stats',
      stats: {
        seconds: wholeUs(now - startNs) / 1e6,
        frames: hot[FRAMES]!,
        xruns: xruns.length + (pending ? 1 : 0),
        minHeadroomUs: intervalMinHeadroom,
        maxWriteUs: intervalMaxWrite,
        writes: intervalWrites,
      },
    });
    intervalMinHeadroom = null;
    intervalMaxWrite = null;
    intervalWrites = 0;
  };

  // Timer mode, no room for a period: start a full stream that did not start by itself, say
  // once if the device stopped playing, else sleep until a period should be free.
  const timerWait = (queued: number): LoopResult | null => {
    if (sincePrepare >= bufferFrames && pcm.state() === PCM_STATE.PREPARED) {
      const s = pcm.start();
      if (s < 0) return handleError('snd_pcm_start', s);
      clock.readNs(hot, PROGRESS_NS);
      return null;
    }
    clock.readNs(hot, LOOP_NS);
    if (!warnedTimeout && hot[LOOP_NS]! - hot[PROGRESS_NS]! > waitTimeoutNs) {
      warnedTimeout = true;
      emit({
        type: 'warning',
        warning: {
          code: 'wait-timeout',
          message: `"${pcm.device}" played nothing for ${config.waitTimeoutMs} ms (stream stalled or clock stopped)`,
        },
      });
    }
    clock.sleepNs(timerSleepNs(pacing!, queued));
    return null;
  };

  const plan = config.stalls;
  // When the next injected stall is due (ns after the start); Infinity when none is left.
  let nextStallDueNs = plan ? stallDueNs(plan, 0) : Infinity;

  for (;;) {
    if (deps.shouldStop()) return finish('stopped');
    clock.readNs(hot, LOOP_NS);
    const loopNs = hot[LOOP_NS]!;
    if (config.durationNs !== null && loopNs - startNs >= config.durationNs) {
      return finish('duration');
    }
    if (loopNs >= nextStatsNs) {
      emitStats(loopNs);
      nextStatsNs += config.statsIntervalNs;
      if (nextStatsNs <= loopNs) nextStatsNs = loopNs + config.statsIntervalNs;
    }

    if (timer) {
      // Syncs the hardware pointer (HWSYNC/DELAY ioctl): without period interrupts, this is
      // where the kernel notices that the buffer ran dry, in this thread's syscall.
      const d = pcm.delay();
      if (d < 0) {
        const r = handleError('snd_pcm_delay', d);
        if (r) return r;
        continue;
      }
    }
    const avail = pcm.availUpdate();
    if (avail < 0) {
      const r = handleError('snd_pcm_avail_update', avail);
      if (r) return r;
      continue;
    }
    if (avail < periodFrames && pacing) {
      const r = timerWait(bufferFrames - avail);
      if (r) return r;
      continue;
    }
    if (avail < periodFrames) {
      const w = pcm.wait(config.waitTimeoutMs);
      if (w < 0) {
        const r = handleError('snd_pcm_wait', w);
        if (r) return r;
      } else if (w === 0) {
        const state = pcm.state();
        if (state === PCM_STATE.PREPARED) {
          // The buffer is full but the start threshold was not reached exactly: start by hand.
          const s = pcm.start();
          if (s < 0) {
            const r = handleError('snd_pcm_start', s);
            if (r) return r;
          }
        } else if (state === PCM_STATE.XRUN) {
          const r = onXrun('snd_pcm_wait');
          if (r) return r;
        } else if (!warnedTimeout) {
          warnedTimeout = true;
          emit({
            type: 'warning',
            warning: {
              code: 'wait-timeout',
              message: `"${pcm.device}" did not ask for audio for ${config.waitTimeoutMs} ms (stream stalled or clock stopped)`,
            },
          });
        }
      }
      continue;
    }

    const running = sincePrepare >= bufferFrames;
    const queued = bufferFrames - avail;
    const buf = deps.nextPeriod();
    clock.readNs(hot, WRITE_START_NS);
    const n = pcm.writei(buf, periodFrames);
    clock.readNs(hot, WRITE_END_NS);
    const t0 = hot[WRITE_START_NS]!;
    const t1 = hot[WRITE_END_NS]!;
    if (n < 0) {
      const r = handleError('snd_pcm_writei', n);
      if (r) return r;
      continue;
    }
    const writeMicros = Math.floor((t1 - t0) / 1000);
    writeUs.recordValue(writeMicros);
    intervalWrites++;
    if (intervalMaxWrite === null || writeMicros > intervalMaxWrite) intervalMaxWrite = writeMicros;
    if (running) {
      const headroom = Math.max(0, Math.round((queued * 1e6) / rate));
      headroomUs.recordValue(headroom);
      if (intervalMinHeadroom === null || headroom < intervalMinHeadroom) {
        intervalMinHeadroom = headroom;
      }
    }
    hot[FRAMES] = hot[FRAMES]! + n;
    sincePrepare = Math.min(sincePrepare + n, bufferFrames);
    hot[LAST_WRITE_NS] = t1;
    hot[PROGRESS_NS] = t1;
    queuedAfterLastWrite = queued + n;
    stalledSinceWrite = false;
    if (pending && sincePrepare >= bufferFrames) settleXrun(t1);

    if (plan && sincePrepare >= bufferFrames && t1 - startNs >= nextStallDueNs) {
      emit({ type: 'stall', index: stallsInjected, ms: plan.stallMs });
      deps.sleepMs(plan.stallMs);
      stallsInjected++;
      stalledSinceWrite = true;
      nextStallDueNs = stallDueNs(plan, stallsInjected);
    }
  }
}

/** When stall `index` of the plan is due, in ns after the loop started (Infinity: no more). */
function stallDueNs(plan: StallPlan, index: number): number {
  return index < plan.count ? Math.round(stallDueMs(plan, index) * 1e6) : Infinity;
}

/** Whole microseconds in a non-negative ns span (truncated, as BigInt division did). */
function wholeUs(ns: number): number {
  return Math.floor(ns / 1000);
}
