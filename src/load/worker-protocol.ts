// The messages between a load's parent (the CLI or a session) and its worker child processes.
// The parent passes a WorkerConfig as JSON in argv; the worker reports over the IPC channel.
import type { LoadKind } from './types.js';
import type { LoadCounters } from './throughput.js';

/** Everything a worker needs; plain JSON. */
export interface WorkerConfig {
  kind: LoadKind;
  /** The worker's own folder inside the load's work folder; it may create anything in it. */
  dir: string;
  /** This worker's share of the load's size, bytes. */
  sizeBytes: number;
  /** Wall-clock end of the load (epoch ms): the worker stops then on its own, parent or not. */
  deadlineAt: number;
  /** This worker's share of the byte limit (benchmarks), or undefined. */
  limitBytes?: number;
  dropCaches: boolean;
  command?: string[];
  outputPath?: string;
  /** 0-based index among the load's workers. */
  index: number;
  /** CPUs every thread of the worker is pinned to (`try load.cpu=LIST`); unset: no pin. */
  cpus?: number[];
}

/** Why a worker ended, as it saw it. */
export type WorkerEnd = 'duration' | 'limit' | 'stopped' | 'disk-full' | 'exited' | 'failed';

export type WorkerMessage =
  | { type: 'progress'; counters: LoadCounters }
  | {
      type: 'done';
      counters: LoadCounters;
      end: WorkerEnd;
      detail?: string;
      exitCode?: number | null;
      exitSignal?: string | null;
    };

export type ParentMessage = { type: 'stop' };

/** Narrows an IPC message from a worker (anything else is ignored). */
export function isWorkerMessage(value: unknown): value is WorkerMessage {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return (type === 'progress' || type === 'done') && 'counters' in value;
}
