// Turns kbuild's output into progress a person can follow: which phase, how many objects
// compiled so far. Pure: one line in, a new state out.

export type BuildPhase =
  'packages' | 'extract' | 'configure' | 'check' | 'compile' | 'install' | 'done';

export interface BuildProgress {
  phase: BuildPhase;
  /** Objects compiled (`CC`, `AS`, `LD`… lines of kbuild) since the compile phase began. */
  objects: number;
  /** The last file kbuild named, for a live status line. */
  lastFile: string | undefined;
}

// kbuild's quiet output: two spaces, a short verb in capitals, spaces, a path.
const KBUILD_LINE = /^ {2}([A-Z][A-Z0-9_]{1,9}(?: \[M\])?)\s+(\S+)/;
// Verbs that produce an object file (counted); others (GEN, SYNC, HOSTCC…) are bookkeeping.
const OBJECT_VERBS = new Set(['CC', 'AS', 'CC [M]', 'AS [M]']);

// The state at the start of a phase.
export function startPhase(phase: BuildPhase, previous?: BuildProgress): BuildProgress {
  return { phase, objects: previous?.objects ?? 0, lastFile: undefined };
}

// Folds one output line of `make` into the progress state.
export function applyBuildLine(state: BuildProgress, line: string): BuildProgress {
  const m = KBUILD_LINE.exec(line);
  if (!m) return state;
  const verb = m[1]!;
  const file = m[2]!;
  return {
    ...state,
    objects: OBJECT_VERBS.has(verb) ? state.objects + 1 : state.objects,
    lastFile: file,
  };
}

// One status line: `compile: 734 objects (kernel/sched/core.o)`.
export function formatBuildProgress(state: BuildProgress, elapsedMs: number): string {
  const secs = Math.floor(elapsedMs / 1000);
  const clock = `${Math.floor(secs / 60)}m${String(secs % 60).padStart(2, '0')}s`;
  if (state.phase !== 'compile' && state.phase !== 'install') return `[${clock}] ${state.phase}`;
  const tail = state.lastFile ? ` (${state.lastFile})` : '';
  return `[${clock}] ${state.phase}: ${state.objects} objects${tail}`;
}
