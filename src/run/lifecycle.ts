// The one run lifecycle, in rtla's shape: init → apply settings → run → collect → restore →
// analyze. session, watch and each stress cell drive it with their stages and the probes they
// register; restore happens in exactly one `finally`, so whatever fails after settings were
// touched (an exception, Ctrl-C, a probe's apply) everything applied is put back, newest
// first. The machine is back before analysis starts: analysis needs nothing from it.
import type { RunContext, RunProbe } from './probe.js';
import { beginSettingsRun, describeRestoreReport, type SettingsLock } from '../proc/index.js';
import type { RunOptions } from './run-options.js';
import { errorMessage } from '../errors.js';

/** What the lifecycle needs of a run's options: where journals are, the roots it locks. */
export type LifecycleOptions = Pick<
  RunOptions,
  'journalDir' | 'journalSearchDirs' | 'roots' | 'stderr' | 'stdin' | 'interactive'
> & {
  /** Named to another run that finds the settings lock taken (`session`, `watch`). */
  command?: string;
};

/** A driver's own stages around the probes (session phases, watch polling, ...). */
export interface RunStages<R> {
  /** Announces the run and reads the machine (after every probe's init); changes nothing. */
  init?(): void | Promise<void>;
  /** Called inside the settings lock before any probe applies (after a killed run's leftovers). */
  beforeApply?(): void | Promise<void>;
  /** Between two probes' apply (e.g. after playback opened, before xrun_debug is set). */
  afterApply?(probe: RunProbe): void | Promise<void>;
  /** The run itself, until it ends or ctx.stop aborts. */
  run(): Promise<void>;
  /** The result, from what the probes collected. */
  analyze(): Promise<R>;
}

/** Runs the stages and probes in order; rethrows the first failure after restoring. */
export async function runLifecycle<R>(
  ctx: RunContext,
  options: LifecycleOptions,
  probes: readonly RunProbe[],
  stages: RunStages<R>,
): Promise<R> {
  for (const p of probes) await p.init?.(ctx);
  await stages.init?.();
  const applied: RunProbe[] = [];
  const held: { lock: SettingsLock | null } = { lock: null };
  try {
    await applySettings(ctx, options, probes, applied, stages, held);
    for (const p of probes) p.run?.(ctx);
    await stages.run();
    for (const p of [...probes].reverse()) await p.collect?.(ctx);
  } finally {
    for (const p of applied.reverse()) {
      try {
        await p.restore?.(ctx);
      } catch (err) {
        ctx.notes.warn(`${p.name}: restoring failed: ${errorMessage(err)}`);
      }
    }
    // The system-wide settings lock (src/proc) is released here, once everything is back.
    held.lock?.release();
  }
  return stages.analyze();
}

/**
 * The single call site where a run changes the machine. The system-wide settings lock
 * (src/proc) is acquired here, before any current value is read: the leftovers of a killed
 * run are restored first, then each probe journals the originals and applies its settings.
 */
async function applySettings<R>(
  ctx: RunContext,
  options: LifecycleOptions,
  probes: readonly RunProbe[],
  applied: RunProbe[],
  stages: RunStages<R>,
  held: { lock: SettingsLock | null },
): Promise<void> {
  // Another run changing the same machine is fatal (its originals would be journaled as ours).
  const begun = await beginSettingsRun({
    roots: { procRoot: options.roots.procRoot, sysRoot: options.roots.sysRoot },
    searchDirs: options.journalSearchDirs ?? [options.journalDir],
    command: options.command ?? 'xrunhunt',
    stderr: options.stderr,
    stdin: options.stdin,
    interactive: options.interactive,
  });
  held.lock = begun.lock;
  for (const r of begun.pending.restored)
    ctx.notes.warn(
      `restored settings left by a killed run (${describeRestoreReport(r.report).join('; ')})`,
    );
  await stages.beforeApply?.();
  for (const p of probes) {
    applied.push(p);
    await p.apply?.(ctx);
    await stages.afterApply?.(p);
  }
}
