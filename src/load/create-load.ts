// The one way to get a load: `createLoad(kind, options)`. Options are validated at once (so a
// session finds a bad phase before it starts anything); machine checks run in start().
import { UsageError } from '../errors.js';
import { ChildProcessLoad } from './child-load.js';
import { validateLoadOptions } from './preflight.js';
import type { Phase } from './phase-plan.js';
import { LOAD_KINDS, type LoadGenerator, type LoadKind, type LoadOptions } from './types.js';

/** Narrows user text to a load kind, with the list of kinds in the error. */
export function parseLoadKind(text: string): LoadKind {
  const kind = LOAD_KINDS.find((k) => k === text);
  if (!kind) {
    throw new UsageError(`unknown load "${text}"; known: ${LOAD_KINDS.join(', ')}`, {
      hint: 'see: xrunhunt load --help',
    });
  }
  return kind;
}

/** Creates a load of `kind`; nothing runs until `start()`. Throws UsageError on bad options. */
export function createLoad(kind: LoadKind, options: LoadOptions): LoadGenerator {
  validateLoadOptions(kind, options);
  return new ChildProcessLoad(kind, options);
}

/** Creates the load for one phase of a plan: the phase's kind, duration and options over `base`. */
export function createPhaseLoad(
  phase: Phase,
  base: Omit<LoadOptions, 'durationMs'> = {},
): LoadGenerator {
  return createLoad(phase.kind, { ...base, ...phase.options, durationMs: phase.durationMs });
}
