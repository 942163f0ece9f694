// The rounds of `try`: the same session plan run alternately with the current setting (A)
// and with the knobs applied (B), A/B/A/B…, each session one pass through the run lifecycle
// with the knob probe registered in the B sessions only. A failing session ends the run (its
// settings are already back: the lifecycle restored them); Ctrl-C stops after restoring.
import { offenderName } from '../session/report-build.js';
import { startSession, type SessionDeps, type SessionOptions } from '../session/run-session.js';
import type { SettingFileIo } from '../proc/index.js';
import type { KnobChange } from './knobs/index.js';
import { createKnobProbe, type KnobProbeOptions } from './knob-probe.js';
import { summarizeTry, type TryResult, type TryRound } from './try-result.js';

export interface TryRunOptions {
  changes: readonly KnobChange[];
  rounds: number;
  /** The session every round runs (no bundle per session). */
  session: Omit<SessionOptions, 'outDir' | 'extraProbes'>;
  io: SettingFileIo;
  hold?: KnobProbeOptions['hold'];
  /** Called as each session starts (progress). */
  onSession?: (round: number, arm: 'A' | 'B') => void;
}

/** The B sessions' plan: the player knobs applied to the base parameters. */
function planFor(o: TryRunOptions, arm: 'A' | 'B'): TryRunOptions['session']['params'] {
  const p = { ...o.session.params };
  if (arm === 'A') return p;
  for (const c of o.changes) {
    if (c.player?.rtPriority !== undefined)
      p.rtPriority = c.player.rtPriority === 0 ? null : c.player.rtPriority;
    if (c.player?.cpu !== undefined) p.cpu = c.player.cpu;
  }
  return p;
}

/** The B sessions' dependencies: the load knobs applied to every load they start. */
export function depsFor(o: TryRunOptions, arm: 'A' | 'B', deps: SessionDeps): SessionDeps {
  const cpus = o.changes.find((c) => c.load)?.load?.cpus;
  if (arm === 'A' || cpus === undefined) return deps;
  return { ...deps, createLoad: (kind, options) => deps.createLoad(kind, { ...options, cpus }) };
}

/** Runs the rounds until done or `signal` aborts; returns the summed result. */
export async function runTry(
  o: TryRunOptions,
  signal: AbortSignal,
  deps: SessionDeps,
): Promise<TryResult> {
  const sessions: TryRound[] = [];
  for (let round = 1; round <= o.rounds && !signal.aborted; round++) {
    for (const arm of ['A', 'B'] as const) {
      if (signal.aborted) break;
      o.onSession?.(round, arm);
      const probe =
        arm === 'B'
          ? [
              createKnobProbe({
                changes: o.changes,
                journalDir: o.session.journalDir,
                toolVersion: o.session.toolVersion,
                io: o.io,
                roots: { procRoot: o.session.roots.procRoot, sysRoot: o.session.roots.sysRoot },
                ...(o.hold ? { hold: o.hold } : {}),
              }),
            ]
          : [];
      const handle = startSession(
        {
          ...o.session,
          params: { ...planFor(o, arm), outDir: null },
          outDir: null,
          extraProbes: probe,
        },
        signal,
        depsFor(o, arm, deps),
      );
      const { report } = await handle.outcome;
      // A session cut short by Ctrl-C is not a like-for-like sample: leave it out.
      if (signal.aborted) break;
      sessions.push({
        round,
        arm,
        durationMs: report.durationMs,
        phases: report.phases.map((p) => ({
          name: p.name,
          xruns: p.xruns,
          durationMs: p.endMs - p.startMs,
        })),
        offenders: report.offenders.map((x) => ({ name: offenderName(x), count: x.count })),
      });
    }
  }
  return summarizeTry(o.changes, sessions);
}
