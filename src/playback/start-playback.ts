// The main-thread handle on a playback run: starts the worker, turns its messages into typed
// events, and resolves `done` with the summary. The host never calls into the audio thread
// except to set the stop flag, so nothing here can stall the writer.
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { AlsaError } from '../alsa/alsa-error.js';
import { XrunhuntError } from '../errors.js';
import type { ErrorCode } from '../errors.js';
import { CONTROL_STOP } from './protocol.js';
import type { WorkerData, WorkerFailure, WorkerMessage } from './protocol.js';
import type { PlaybackEvents, PlaybackOptions, PlaybackSummary, StartedEvent } from './types.js';

export interface StartPlaybackContext {
  /** Aborting stops playback cleanly (done still resolves with the summary). */
  signal?: AbortSignal;
}

/** A running playback: typed events, `started`, `done`, and `stop()`. */
export class PlaybackHandle extends EventEmitter<PlaybackEvents> {
  /** Resolves once the device is open and configured (rejects if that fails). */
  readonly started: Promise<StartedEvent>;
  /** Resolves with the summary when playback ends (rejects if the device cannot be opened). */
  readonly done: Promise<PlaybackSummary>;
  readonly #control: Int32Array;

  /** @internal use startPlayback() */
  constructor(worker: Worker, control: SharedArrayBuffer) {
    super();
    this.#control = new Int32Array(control);
    let resolveStarted!: (e: StartedEvent) => void;
    let rejectStarted!: (e: unknown) => void;
    this.started = new Promise((res, rej) => {
      resolveStarted = res;
      rejectStarted = rej;
    });
    // Callers that only await `done` must not see an unhandled rejection from `started`.
    this.started.catch(() => undefined);
    this.done = new Promise((resolve, reject) => {
      let settled = false;
      const failWith = (err: unknown): void => {
        if (settled) return;
        settled = true;
        rejectStarted(err);
        reject(err);
      };
      worker.on('message', (m: WorkerMessage) => {
        switch (m.type) {
          case 'started':
            resolveStarted(m.event);
            this.emit('started', m.event);
            break;
          case 'xrun':
            this.emit('xrun', m.event);
            break;
          case 'stats':
            this.emit('stats', m.event);
            break;
          case 'warning':
            this.emit('warning', m.event);
            break;
          case 'stall':
            break;
          case 'ended':
            settled = true;
            this.emit('ended', m.summary);
            resolve(m.summary);
            break;
          case 'failed':
            failWith(reviveFailure(m.error));
            break;
        }
      });
      worker.on('error', (err) => failWith(err));
      worker.on('exit', (code) =>
        failWith(
          new XrunhuntError(
            'internal',
            `the playback worker exited before reporting a result (exit code ${code})`,
          ),
        ),
      );
    });
  }

  /** Asks the writer to stop after its current period; `done` then resolves. */
  stop(): void {
    Atomics.store(this.#control, CONTROL_STOP, 1);
  }
}

// Rebuilds the error class that was thrown in the worker, so callers can branch on it.
function reviveFailure(f: WorkerFailure): Error {
  if (f.name === 'AlsaError' && f.op !== undefined && f.errno !== undefined) {
    return new AlsaError(
      {
        op: f.op,
        errno: f.errno,
        alsaMessage: f.alsaMessage ?? '',
        device: f.device ?? '',
        ...(f.hint === undefined ? {} : { hint: f.hint }),
      },
      f.message,
    );
  }
  if (f.code === 'internal') return new Error(f.message);
  return new XrunhuntError(
    f.code as ErrorCode,
    f.message,
    f.hint === undefined ? {} : { hint: f.hint },
  );
}

// Under tsx (sources) a worker does not inherit the TypeScript loader on Node 20: register it
// inside the worker before importing the entry. Built code starts the .js entry directly.
function spawnWorker(data: WorkerData): Worker {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const entry = new URL('./playback-worker.ts', import.meta.url).href;
    const api = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true, workerData: data });
  }
  return new Worker(new URL('./playback-worker.js', import.meta.url), { workerData: data });
}

/** Starts playback in a real-time worker thread and returns its handle. */
export function startPlayback(
  options: PlaybackOptions,
  context: StartPlaybackContext = {},
): PlaybackHandle {
  const control = new SharedArrayBuffer(4);
  const worker = spawnWorker({ options, control });
  const handle = new PlaybackHandle(worker, control);
  const { signal } = context;
  if (signal) {
    if (signal.aborted) handle.stop();
    const onAbort = (): void => handle.stop();
    signal.addEventListener('abort', onAbort, { once: true });
    handle.done.finally(() => signal.removeEventListener('abort', onAbort)).catch(() => undefined);
  }
  return handle;
}
