// The stress matrix run: one short session per cell (no bundle), loads × periods, each load
// from the smallest period up until one runs without xruns (--all: every cell). The cells'
// options are checked before the first runs; a cell that fails is a note, not the end.
import type { Phase } from '../load/index.js';
import type { StallPlan } from '../playback/index.js';
import { offenderName } from './report-build.js';
import type { SessionParams } from './events.js';
import { startSession, type SessionDeps, type SessionOptions } from './run-session.js';
import { cellNeeded, type StressCell } from './stress.js';
import { errorMessage } from '../errors.js';

/** One planned cell: a load at a period, with its checked session plan. */
export interface StressCellPlan {
  load: string;
  period: number;
  plan: { params: SessionParams; phases: Phase[]; injectStall: StallPlan | null };
}

export interface StressRunOptions {
  cells: readonly StressCellPlan[];
  /** Run every cell, not only up to the first xrun-free period of each load. */
  all: boolean;
  /** What every cell's session shares (machine, journal, output). */
  session: Omit<SessionOptions, 'params' | 'phases' | 'injectStall' | 'outDir'>;
  /** Called as each cell starts (progress). */
  onCell?: (load: string, period: number) => void;
  /** Called as each cell ends, run or not (progress). */
  onCellDone?: (cell: StressCell) => void;
  /** When a load's cell counts as passed (no more periods needed); default: no xruns. */
  passes?: (cell: StressCell) => boolean;
}

const notRun = (load: string, periodFrames: number, note: string | null): StressCell => ({
  load,
  periodFrames,
  xruns: null,
  xrunsPerMin: null,
  kernelEvents: null,
  topOffender: null,
  durationMs: null,
  note,
});

/** Runs the matrix until done or `signal` aborts; returns every cell (run or not). */
export async function runStressMatrix(
  o: StressRunOptions,
  signal: AbortSignal,
  deps: SessionDeps,
): Promise<StressCell[]> {
  const cells: StressCell[] = [];
  for (const { load, period, plan } of o.cells) {
    if (signal.aborted) break;
    if (!cellNeeded(cells, load, o.all, o.passes)) {
      cells.push(notRun(load, period, null));
      continue;
    }
    o.onCell?.(load, period);
    try {
      const handle = startSession(
        { ...o.session, ...plan, injectStall: null, outDir: null },
        signal,
        deps,
      );
      const { report } = await handle.outcome;
      const top = report.offenders[0];
      cells.push({
        load,
        periodFrames: period,
        xruns: report.xruns.length,
        xrunsPerMin: report.phases[0]?.xrunsPerMin ?? null,
        kernelEvents: report.events.length,
        topOffender: top ? offenderName(top) : null,
        durationMs: Math.round(report.durationMs),
        note: signal.aborted ? 'interrupted' : null,
      });
    } catch (err) {
      cells.push(notRun(load, period, errorMessage(err)));
    }
    o.onCellDone?.(cells[cells.length - 1]!);
  }
  return cells;
}

/** Whether nothing could run at all (a tool error, not a result): the first failure then. */
export function nothingRan(cells: readonly StressCell[]): string | null {
  const failed = cells.filter((c) => c.note && c.note !== 'interrupted');
  return failed.length === cells.length && cells.length > 0 ? failed[0]!.note : null;
}
