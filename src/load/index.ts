// Public surface of the load generators: sessions and the CLI import from here only.
export type {
  CleanedFolder,
  LoadGenerator,
  LoadKind,
  LoadOptions,
  LoadSample,
  LoadStats,
  LoadStopReason,
} from './types.js';
export { LOAD_KINDS } from './types.js';
export { createLoad, createPhaseLoad, parseLoadKind } from './create-load.js';
export { parsePhasePlan, phaseAt, phasePlanDurationMs } from './phase-plan.js';
export type { Phase, PhaseOptions } from './phase-plan.js';
export { preflightLoad } from './preflight.js';
export type { LoadPlan } from './preflight.js';
export { listKinds } from './registry.js';
export { formatSampleLine, plural } from './throughput.js';
export { defaultDiskFloor, maxMemoryLoad } from './safety.js';
