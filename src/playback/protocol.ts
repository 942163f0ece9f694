// The vocabulary between the host (main thread) and the playback worker. Worker → host only
// carries events (postMessage never blocks the writer); host → worker control goes through a
// SharedArrayBuffer flag the writer polls once per period, so it never waits for the host.
import type {
  PlaybackOptions,
  PlaybackSummary,
  StartedEvent,
  StatsEvent,
  WarningEvent,
  XrunEvent,
} from './types.js';

export interface WorkerData {
  options: PlaybackOptions;
  /** Int32Array over it: [0] = stop requested (1). */
  control: SharedArrayBuffer;
}

export const CONTROL_STOP = 0;

/** A serialised AlsaError / XrunhuntError (class identity does not cross threads). */
export interface WorkerFailure {
  name: string;
  code: string;
  message: string;
  hint?: string;
  op?: string;
  errno?: number;
  alsaMessage?: string;
  device?: string;
}

export type WorkerMessage =
  | { type: 'started'; event: StartedEvent }
  | { type: 'xrun'; event: XrunEvent }
  | { type: 'stats'; event: StatsEvent }
  | { type: 'warning'; event: WarningEvent }
  | { type: 'stall'; index: number; ms: number }
  | { type: 'ended'; summary: PlaybackSummary }
  | { type: 'failed'; error: WorkerFailure };
