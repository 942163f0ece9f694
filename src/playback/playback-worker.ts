// worker_threads entry: scheduling first (SCHED_FIFO, CPU pin), then open + configure the PCM
// and run the write loop with synchronous koffi calls. Everything leaves as postMessage events.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { AlsaPcm } from '../alsa/alsa-pcm.js';
import { AlsaError } from '../alsa/alsa-error.js';
import { nameThisThread, pinThreadToCpu, setThreadRealtime } from '../alsa/realtime-thread.js';
import { openMonotonicClock } from '../alsa/monotonic-clock.js';
import { isXrunhuntError } from '../errors.js';
import { summarizeHistogram } from './latency-histogram.js';
import { createSignalSource } from './signal-source.js';
import { runWriteLoop } from './write-loop.js';
import { diffThreadUsage, readThreadUsage } from './thread-usage.js';
import type { LoopEvent } from './write-loop.js';
import { CONTROL_STOP } from './protocol.js';
import type { WorkerData, WorkerFailure, WorkerMessage } from './protocol.js';

/** The writer thread's comm (at most 15 characters): what traces and `ps -L` show. */
const PLAYBACK_THREAD_NAME = 'xrunhunt-play';
import type { PolicyReport, WarningEvent } from './types.js';

// A snd_pcm_wait longer than this means the device stopped asking for audio; 1 s is far
// above any period size a user would test with.
const WAIT_TIMEOUT_MS = 1000;
const DEFAULT_STATS_INTERVAL_MS = 1000;

const port = parentPort;
if (!port) throw new Error('playback-worker must run in a worker thread');
const data = workerData as WorkerData;
const control = new Int32Array(data.control);
const send = (m: WorkerMessage): void => port.postMessage(m);

function toFailure(err: unknown): WorkerFailure {
  if (err instanceof AlsaError) {
    return {
      name: err.name,
      code: err.code,
      message: err.message,
      ...(err.hint === undefined ? {} : { hint: err.hint }),
      op: err.op,
      errno: err.errno,
      alsaMessage: err.alsaMessage,
      device: err.device,
    };
  }
  if (isXrunhuntError(err)) {
    return {
      name: err.name,
      code: err.code,
      message: err.message,
      ...(err.hint ? { hint: err.hint } : {}),
    };
  }
  return {
    name: 'Error',
    code: 'internal',
    message: err instanceof Error ? (err.stack ?? err.message) : String(err),
  };
}

/**
 * Collects the garbage of opening and configuring the PCM before the first period, so that
 * the worker's first major GC (measured: 2 ms quiet, 13–31 ms with GC helper threads starved
 * on a loaded box) does not fall a few seconds into playback as an xrun. The loop itself
 * allocates nothing (write-loop.alloc.test.ts), so there is no later one. `gc` is exposed for
 * this call only through a fresh context; where that is refused, playback goes on without it.
 */
function collectStartupGarbage(): void {
  try {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  } catch {
    // not fatal: at worst the startup garbage is collected during playback, as before
  }
}

function run(): void {
  const o = data.options;
  const warn = (w: WarningEvent): void => send({ type: 'warning', event: w });
  // Its own comm, so the kernel's XRUN stacks and the flight recorder name the writer, not `node`.
  const nameErr = nameThisThread(PLAYBACK_THREAD_NAME);
  if (nameErr) warn({ code: 'thread-name', message: nameErr });
  const rt = setThreadRealtime(o.rtPriority);
  if (rt.error)
    warn({
      code: 'rt-denied',
      message: `${rt.error.message}; playing at normal priority (expect more xruns)`,
    });
  if (o.cpu !== null) {
    const pinErr = pinThreadToCpu(o.cpu);
    if (pinErr) warn({ code: 'cpu-pin', message: pinErr });
  }
  const policy: PolicyReport = {
    policy: rt.policy,
    priority: rt.priority,
    tid: rt.tid,
    cpu: o.cpu,
    requestedPriority: o.rtPriority,
  };
  const pcm = AlsaPcm.open(o.device);
  try {
    const granted = pcm.configure(o);
    const hwPcm = pcm.hwPcm();
    const wakeup = pcm.wakeup;
    if (wakeup.requested === 'timer' && wakeup.periodInterrupts) {
      warn({ code: 'wakeup', message: `--wakeup timer: ${wakeup.reason}` });
    }
    const startNs = process.hrtime.bigint();
    send({
      type: 'started',
      event: {
        device: o.device,
        granted,
        policy,
        hwPcm,
        pcmType: pcm.typeName(),
        wakeup,
        startNs,
      },
    });
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    collectStartupGarbage();
    const usageBefore = readThreadUsage();
    const result = runWriteLoop(
      {
        granted,
        durationNs: o.durationMs === null ? null : Math.round(o.durationMs * 1e6),
        stalls: o.injectStall,
        statsIntervalNs: Math.round((o.statsIntervalMs ?? DEFAULT_STATS_INTERVAL_MS) * 1e6),
        waitTimeoutMs: WAIT_TIMEOUT_MS,
        wakeup: wakeup.requested,
      },
      {
        pcm,
        clock: openMonotonicClock(),
        sleepMs: (ms) => void Atomics.wait(sleeper, 0, 0, ms),
        shouldStop: () => Atomics.load(control, CONTROL_STOP) !== 0,
        nextPeriod: createSignalSource(o.signal, granted),
        emit: (e: LoopEvent) => {
          if (e.type === 'stall') send(e);
          else
            send({
              type: e.type,
              event: e.type === 'xrun' ? e.xrun : e.type === 'stats' ? e.stats : e.warning,
            } as WorkerMessage);
        },
      },
    );
    const writerThread = diffThreadUsage(usageBefore, readThreadUsage());
    pcm.drop();
    send({
      type: 'ended',
      summary: {
        device: o.device,
        granted,
        policy,
        hwPcm,
        wakeup,
        endReason: result.endReason,
        error: result.error,
        frames: result.frames,
        seconds: Number((result.endNs - result.startNs) / 1000n) / 1e6,
        xruns: result.xruns,
        stallsInjected: result.stallsInjected,
        histograms: {
          headroomUs: summarizeHistogram(result.headroomUs),
          writeUs: summarizeHistogram(result.writeUs),
        },
        writerThread,
      },
    });
  } finally {
    pcm.close();
  }
}

try {
  run();
} catch (err) {
  send({ type: 'failed', error: toFailure(err) });
}
