// Many XRUN breakdowns into one ranking: how many of each class and detection shape, and the
// blockers that took the most net time across all of them (a task by comm and priority — pids
// change between runs, comms do not —, an interrupt handler, a softirq vector, the interrupted
// function of a late period interrupt). Pure: breakdowns in, a summary out.
import type {
  BreakdownClass,
  BreakdownPart,
  DetectionShape,
  XrunBreakdown,
} from './breakdown-types.js';

/** One blocker, summed over all breakdowns. */
export interface BlockerRank {
  kind: BreakdownPart['kind'];
  /** Task comm, handler name, softirq vector, or interrupted function. */
  name: string;
  /** The task's kernel priority, for `task` blockers (one entry per comm+prio). */
  prio?: number;
  /** Net milliseconds over all breakdowns, and the share of all lateness. */
  totalMs: number;
  share: number;
  /** Breakdowns it appears in, and those where it was the largest part. */
  count: number;
  topCount: number;
  /** A stack it was seen with, when one was recorded. */
  stack?: readonly string[];
}

/** What many breakdowns add up to: counts, completeness, lateness, the blocker ranking. */
export interface BreakdownSummary {
  xruns: number;
  /** Breakdowns that were complete (the window covered, no events lost, late thread found). */
  complete: number;
  completeShare: number;
  byClass: Partial<Record<BreakdownClass, number>>;
  byShape: Partial<Record<DetectionShape, number>>;
  /** Sum of all lateness (ms) and the mean. */
  totalLatenessMs: number;
  meanLatenessMs: number;
  /** Blockers by total net ms (then count); own-run and sleep rank too, as the application. */
  blockers: BlockerRank[];
  /** The writer's own sleeps that made XRUNs (breakdowns with `ownSleep`), when there were any. */
  ownSleeps?: OwnSleepSummary;
}

/** The writer's own sleeps over many breakdowns: how many, by whom, how long (ms). */
export interface OwnSleepSummary {
  count: number;
  /** The sleeping thread's comm (the most frequent one). */
  comm: string;
  meanMs: number;
  minMs: number;
  maxMs: number;
}

// The own sleeps of the listed breakdowns, or undefined when none has one.
function ownSleepSummary(list: readonly XrunBreakdown[]): OwnSleepSummary | undefined {
  const with_ = list.filter((b) => b.ownSleep);
  if (with_.length === 0) return undefined;
  const ms = with_.map((b) => b.ownSleep!.ms);
  const comms = new Map<string, number>();
  for (const b of with_) comms.set(b.late.comm, (comms.get(b.late.comm) ?? 0) + 1);
  const comm = [...comms].sort((a, b) => b[1] - a[1])[0]![0];
  return {
    count: with_.length,
    comm,
    meanMs: ms.reduce((a, b) => a + b, 0) / ms.length,
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
  };
}

/** The parts that name something to blame, as a ranking key. */
function blockerKey(p: BreakdownPart): string {
  return p.kind === 'task'
    ? `task\u0000${p.name}\u0000${p.prio ?? ''}`
    : `${p.kind}\u0000${p.name}`;
}

/** Aggregates breakdowns (optionally only the complete ones) into counts and a blocker ranking. */
export function summarizeBreakdowns(
  breakdowns: readonly XrunBreakdown[],
  options: { completeOnly?: boolean; top?: number } = {},
): BreakdownSummary {
  const list = options.completeOnly ? breakdowns.filter((b) => b.complete) : breakdowns;
  const byClass: Partial<Record<BreakdownClass, number>> = {};
  const byShape: Partial<Record<DetectionShape, number>> = {};
  const ranks = new Map<string, BlockerRank>();
  let total = 0;
  for (const b of list) {
    byClass[b.cls] = (byClass[b.cls] ?? 0) + 1;
    byShape[b.shape] = (byShape[b.shape] ?? 0) + 1;
    total += b.latenessMs;
    const seen = new Set<string>();
    b.parts.forEach((p, i) => {
      const key = blockerKey(p);
      let r = ranks.get(key);
      if (!r) {
        r = { kind: p.kind, name: p.name, totalMs: 0, share: 0, count: 0, topCount: 0 };
        if (p.kind === 'task' && p.prio !== undefined) r.prio = p.prio;
        ranks.set(key, r);
      }
      r.totalMs += p.ms;
      if (!seen.has(key)) r.count++;
      seen.add(key);
      if (i === 0) r.topCount++;
      if (!r.stack && p.stack) r.stack = p.stack;
    });
  }
  const blockers = [...ranks.values()]
    .map((r) => ({ ...r, share: total > 0 ? r.totalMs / total : 0 }))
    .sort((a, b) => b.totalMs - a.totalMs || b.count - a.count || a.name.localeCompare(b.name))
    .slice(0, options.top ?? 20);
  const complete = list.filter((b) => b.complete).length;
  const own = ownSleepSummary(list);
  return {
    ...(own ? { ownSleeps: own } : {}),
    xruns: list.length,
    complete,
    completeShare: list.length > 0 ? complete / list.length : 0,
    byClass,
    byShape,
    totalLatenessMs: total,
    meanLatenessMs: list.length > 0 ? total / list.length : 0,
    blockers,
  };
}
