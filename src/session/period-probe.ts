// Runs `--period auto`'s idle probes: one short idle session per candidate period, smallest
// first, through the stress loop (each probe is a full session: capture, xrun_debug, restore),
// stopping at the first nearly xrun-free one; a probe itself stops at its first xrun too many.
// The IO shell around period-choice.ts.
import { parsePhasePlan } from '../load/index.js';
import type { SessionDeps } from './run-session.js';
import {
  AUTO_PERIOD_CANDIDATES,
  AUTO_PERIOD_MAX_XRUNS,
  AUTO_PERIOD_PROBE_MS,
  choosePeriod,
  probePasses,
  type PeriodChoice,
  type PeriodProbe,
} from './period-choice.js';
import type { SessionPlan } from './session-options.js';
import { runStressMatrix, type StressRunOptions } from './stress-run.js';

export interface PeriodProbeOptions {
  plan: SessionPlan;
  session: StressRunOptions['session'];
  candidates?: readonly number[];
  probeMs?: number;
  /** Progress: a probe starts (xruns null) or ends. */
  onProbe?: (probe: PeriodProbe) => void;
}

// Probes candidate periods idle and returns the choice; null when no probe could run.
export async function probeIdlePeriod(
  o: PeriodProbeOptions,
  signal: AbortSignal,
  deps: SessionDeps,
): Promise<PeriodChoice | null> {
  const probeMs = o.probeMs ?? AUTO_PERIOD_PROBE_MS;
  const plan = `idle:${probeMs}ms`;
  const cells = (o.candidates ?? AUTO_PERIOD_CANDIDATES).map((period) => ({
    load: 'idle',
    period,
    plan: {
      params: {
        ...o.plan.params,
        periodFrames: period,
        phasePlan: plan,
        durationMs: null,
        // A probe fails at its second xrun: it stops there instead of playing on for the rest
        // of its 6 s (the lab's emulated guest had 500 xruns at 64 frames; each failing probe
        // cost its full length).
        maxXruns: AUTO_PERIOD_MAX_XRUNS,
        outDir: null,
        injectStall: false,
      },
      phases: parsePhasePlan(plan),
      injectStall: null,
    },
  }));
  const toProbe = (c: {
    periodFrames: number;
    xruns: number | null;
    durationMs: number | null;
    note: string | null;
  }): PeriodProbe => ({
    periodFrames: c.periodFrames,
    xruns: c.xruns,
    durationMs: c.durationMs,
    note: c.note,
  });
  const done = await runStressMatrix(
    {
      cells,
      all: false,
      session: o.session,
      passes: probePasses,
      onCell: (_load, period) =>
        o.onProbe?.({ periodFrames: period, xruns: null, durationMs: null, note: null }),
      onCellDone: (cell) => {
        if (cell.xruns !== null || cell.note) o.onProbe?.(toProbe(cell));
      },
    },
    signal,
    deps,
  );
  return choosePeriod(done.filter((c) => c.xruns !== null || c.note).map(toProbe));
}
