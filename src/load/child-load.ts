// The LoadGenerator every kind runs behind: the parent side. It plans and checks the load,
// cleans folders of killed runs, creates the load's own folder, starts the worker child
// processes, samples their counters once a second, stops them at the deadline or on abort
// (SIGKILL if they do not stop), and removes the folder before it reports.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XrunhuntError } from '../errors.js';
import { preflightLoad, type LoadPlan, type MachineProbe, realMachine } from './preflight.js';
import { kindSpec } from './registry.js';
import {
  sampleBetween,
  sumCounters,
  toStats,
  ZERO_COUNTERS,
  type LoadCounters,
} from './throughput.js';
import type {
  CleanedFolder,
  LoadGenerator,
  LoadKind,
  LoadOptions,
  LoadStats,
  LoadStopReason,
} from './types.js';
import { cleanStaleFolders, createWorkFolder, removeWorkFolder } from './work-folder.js';
import {
  isWorkerMessage,
  type WorkerConfig,
  type WorkerEnd,
  type WorkerMessage,
} from './worker-protocol.js';

// Workers stop on their own at the deadline; the parent asks again after this margin.
const STOP_MARGIN_MS = 250;
// Then waits this long before SIGKILL: an external command gets SIGTERM and 3 s to print its
// summary (see kinds/external.ts), so 5 s covers it.
const KILL_AFTER_MS = 5000;
const SAMPLE_EVERY_MS = 1000;

interface WorkerState {
  child: ChildProcess;
  /** Set when the process could not be started or signalled (EAGAIN, ENOMEM...). */
  error?: Error;
  counters: LoadCounters;
  done?: Extract<WorkerMessage, { type: 'done' }>;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

/** Starts worker processes; replaceable so a test could watch the spawns. */
export type SpawnWorker = (config: WorkerConfig) => ChildProcess;

/** Runs `worker-main` in a child Node process (through tsx when running from sources). */
export const spawnWorkerProcess: SpawnWorker = (config) => {
  const self = fileURLToPath(import.meta.url);
  const fromSource = self.endsWith('.ts');
  const entry = join(self, '..', fromSource ? 'worker-main.ts' : 'worker-main.js');
  const execArgv = fromSource ? ['--import', import.meta.resolve('tsx')] : [];
  return fork(entry, [JSON.stringify(config)], {
    execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
};

export interface ChildLoadDeps {
  machine: MachineProbe;
  spawnWorker: SpawnWorker;
}

// One LoadGenerator for every kind: the kind decides what the workers do, this class owns
// their lifecycle, so stopping, sampling and cleanup behave the same for all loads.
export class ChildProcessLoad implements LoadGenerator {
  readonly kind: LoadKind;
  private plan: LoadPlan | undefined;
  private workers: WorkerState[] = [];
  private started = false;
  private idleStart: number | undefined;
  private final: LoadStats | undefined;
  /** Folders of killed runs removed at start (empty until start). */
  cleaned: CleanedFolder[] = [];

  constructor(
    kind: LoadKind,
    private readonly options: LoadOptions,
    private readonly deps: ChildLoadDeps = {
      machine: realMachine,
      spawnWorker: spawnWorkerProcess,
    },
  ) {
    this.kind = kind;
  }

  stats(): LoadStats {
    if (this.final) return this.final;
    const spec = kindSpec(this.kind);
    const counters =
      this.idleStart !== undefined
        ? { ...ZERO_COUNTERS, activeMs: performance.now() - this.idleStart }
        : sumCounters(this.workers.map((w) => w.done?.counters ?? w.counters));
    return toStats(this.kind, counters, this.plan?.workers ?? 0, spec.opsUnit);
  }

  async start(signal?: AbortSignal): Promise<LoadStats> {
    if (this.started)
      throw new XrunhuntError('internal', `load "${this.kind}" was already started`);
    this.started = true;
    const plan = await preflightLoad(this.kind, this.options, this.deps.machine);
    this.plan = plan;
    this.cleaned = await cleanStaleFolders(plan.parentDir);
    if (signal?.aborted) return this.finish('interrupted');
    if (plan.workers === 0) return this.runIdle(plan, signal);
    const folder = await createWorkFolder(plan.parentDir, this.kind);
    try {
      return await this.runWorkers(plan, folder, signal);
    } finally {
      for (const w of this.workers) if (!w.exit) w.child.kill('SIGKILL');
      await removeWorkFolder(folder);
    }
  }

  private async runIdle(plan: LoadPlan, signal: AbortSignal | undefined): Promise<LoadStats> {
    this.idleStart = performance.now();
    const aborted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), plan.durationMs);
      const onAbort = (): void => done(true);
      const done = (a: boolean): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(a);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    return this.finish(aborted ? 'interrupted' : 'duration');
  }

  private async runWorkers(
    plan: LoadPlan,
    folder: string,
    signal: AbortSignal | undefined,
  ): Promise<LoadStats> {
    const deadlineAt = Date.now() + plan.durationMs;
    for (let i = 0; i < plan.workers; i++) {
      const dir = join(folder, `w${i}`);
      await mkdir(dir);
      const config: WorkerConfig = {
        kind: plan.kind,
        dir,
        sizeBytes: Math.floor(plan.sizeBytes / plan.workers),
        deadlineAt,
        dropCaches: plan.dropCaches,
        index: i,
        ...(plan.limitBytes === undefined
          ? {}
          : { limitBytes: Math.ceil(plan.limitBytes / plan.workers) }),
        ...(plan.command ? { command: plan.command } : {}),
        ...(plan.outputPath ? { outputPath: plan.outputPath } : {}),
        ...(this.options.cpus ? { cpus: [...this.options.cpus] } : {}),
      };
      this.workers.push(this.watch(this.deps.spawnWorker(config)));
    }
    let interrupted = false;
    const stopAll = (): void => {
      for (const w of this.workers)
        if (!w.exit && w.child.connected) w.child.send({ type: 'stop' }, () => undefined);
    };
    const killTimers: NodeJS.Timeout[] = [];
    const stopThenKill = (): void => {
      stopAll();
      killTimers.push(
        setTimeout(() => {
          for (const w of this.workers) if (!w.exit) w.child.kill('SIGKILL');
        }, KILL_AFTER_MS),
      );
    };
    const onAbort = (): void => {
      interrupted = true;
      stopThenKill();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort(); // aborted while the workers were being started
    const deadline = setTimeout(stopThenKill, plan.durationMs + STOP_MARGIN_MS);
    let previous: LoadCounters = ZERO_COUNTERS;
    const sampler = setInterval(() => {
      const now = sumCounters(this.workers.map((w) => w.done?.counters ?? w.counters));
      const interval = now.activeMs - previous.activeMs;
      if (interval <= 0) return;
      this.options.onSample?.(sampleBetween(plan.kind, previous, now, interval));
      previous = now;
    }, SAMPLE_EVERY_MS);
    try {
      await Promise.all(this.workers.map((w) => this.exited(w, stopAll)));
    } finally {
      clearTimeout(deadline);
      clearInterval(sampler);
      for (const t of killTimers) clearTimeout(t);
      signal?.removeEventListener('abort', onAbort);
    }
    return this.finish(interrupted ? 'interrupted' : undefined);
  }

  private watch(child: ChildProcess): WorkerState {
    const state: WorkerState = { child, counters: { ...ZERO_COUNTERS } };
    child.on('message', (m: unknown) => {
      if (!isWorkerMessage(m)) return;
      state.counters = m.counters;
      if (m.type === 'done') state.done = m;
    });
    child.on('error', (err) => (state.error ??= err));
    return state;
  }

  /** Resolves when the worker has exited; a worker that ends badly stops the others. */
  private exited(w: WorkerState, stopOthers: () => void): Promise<void> {
    return new Promise((resolve) => {
      const onExit = (code: number | null, sig: NodeJS.Signals | null): void => {
        w.exit = { code, signal: sig };
        const end = w.done?.end;
        if (end === undefined || end === 'disk-full' || end === 'failed' || end === 'exited')
          stopOthers();
        resolve();
      };
      if (w.child.exitCode !== null || w.child.signalCode !== null)
        onExit(w.child.exitCode, w.child.signalCode);
      else if (w.child.pid === undefined)
        onExit(null, null); // never started: 'error' says why
      else w.child.once('exit', onExit);
    });
  }

  private finish(forced: LoadStopReason | undefined): LoadStats {
    const stats = this.stats();
    const ends = this.workers.map((w) => w.done?.end ?? 'crashed');
    const reason: LoadStopReason = forced ?? mergeEnds(ends);
    const final: LoadStats = { ...stats, stopReason: reason };
    const troubled = this.workers.find((w) => w.done?.detail !== undefined || !w.done);
    if (troubled && reason !== 'interrupted') {
      final.stopDetail =
        troubled.done?.detail ??
        (troubled.error && `cannot start a load worker: ${troubled.error.message}`) ??
        `a load worker ended without reporting (exit ${troubled.exit?.code ?? troubled.exit?.signal ?? 'unknown'})`;
    }
    const ext = this.workers[0]?.done;
    if (this.kind === 'external') {
      final.exitCode = ext?.exitCode ?? null;
      final.exitSignal = ext?.exitSignal ?? null;
      if (this.plan?.outputPath) final.outputPath = this.plan.outputPath;
    }
    this.final = final;
    return final;
  }
}

/** One stop reason for the whole load from each worker's end. */
export function mergeEnds(ends: readonly (WorkerEnd | 'crashed')[]): LoadStopReason {
  if (ends.includes('disk-full')) return 'disk-full';
  if (ends.includes('failed') || ends.includes('crashed')) return 'failed';
  if (ends.includes('exited')) return 'exited';
  if (ends.length > 0 && ends.every((e) => e === 'limit')) return 'limit';
  // 'stopped' without an abort: the parent's deadline caught a worker mid-operation.
  return 'duration';
}
