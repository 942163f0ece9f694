// Ranking: kernel offenders by count (function + module), with their share of ALL events,
// how many distinct signatures they cover, and example lines. Idle / user / none are
// counted in the summary, never ranked as offenders; detector-only events (an IRQ thread's,
// a softirq thread's or a system call's own stack) are counted by context. Deterministic order.
import { RULES_VERSION } from './rules.js';
import type {
  AnalysisSummary,
  DetectionContext,
  DetectorOnlyCount,
  OffenderRank,
  XrunEvent,
} from './types.js';

// Example lines kept per offender: enough to find the dumps, small in JSON.
const MAX_EXAMPLES = 10;
// Detecting tasks named per detector-only context (the rest are only counted).
const MAX_TASKS = 5;
// Distinct task names remembered per context (bounded memory on any log).
const MAX_TASK_NAMES = 1000;
// Offender groups (function + module) held at once. A log with more distinct offenders is
// garbage or an attack (a real log has tens); past this, the least frequent are pruned so
// the ranking's memory stays bounded at any number of distinct names.
export const MAX_RANKED_OFFENDERS = 20000;
// Distinct signatures counted per offender group (the rest are not told apart).
const MAX_SIGNATURES = 1000;

/** Counts detector-only events by context and detecting task, in bounded memory. */
function createDetectorOnlyTally(): {
  add(ev: XrunEvent): void;
  counts(): DetectorOnlyCount[] | undefined;
} {
  const by = new Map<DetectionContext, { count: number; tasks: Map<string, number> }>();
  return {
    add(ev) {
      if (ev.offender.class !== 'detector-only') return;
      const ctx = ev.detection?.context ?? 'unknown';
      let g = by.get(ctx);
      if (!g) {
        g = { count: 0, tasks: new Map() };
        by.set(ctx, g);
      }
      g.count++;
      const comm = ev.detection?.task?.comm;
      if (comm !== undefined && (g.tasks.has(comm) || g.tasks.size < MAX_TASK_NAMES))
        g.tasks.set(comm, (g.tasks.get(comm) ?? 0) + 1);
    },
    counts() {
      if (by.size === 0) return undefined;
      return [...by.entries()]
        .map(([context, g]) => ({
          context,
          count: g.count,
          tasks: [...g.tasks.entries()]
            .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
            .slice(0, MAX_TASKS)
            .map(([t]) => t),
        }))
        .sort((a, b) => b.count - a.count || (a.context < b.context ? -1 : 1));
    },
  };
}

interface OffenderGroup {
  function: string;
  module: string | null;
  count: number;
  sigs: Map<string, number>;
  lines: number[];
  sources: string[];
}

/**
 * Counts events one at a time into offender groups and summary counts, holding only
 * per-offender state (never the events): what lets `analyze` rank any number of events
 * in bounded memory while it streams them out.
 */
export interface OffenderTally {
  add(ev: XrunEvent): void;
  /** Events added so far. */
  readonly events: number;
  /** The ranking of everything added so far (share of all added events). */
  offenders(): OffenderRank[];
  /** Per-kind / per-class counts of everything added so far. */
  summary(lines: number): AnalysisSummary;
  /** What the bounds left out (too many distinct offenders or signatures), for the report. */
  warnings(): string[];
}

/**
 * Smallest count t such that at least `need` groups have a count ≤ t: pruning those frees
 * half of the groups whatever the distribution (many 1s, or all equal).
 */
function pruneThreshold(groups: Iterable<OffenderGroup>, need: number): number {
  const counts: number[] = [];
  for (const g of groups) counts.push(g.count);
  counts.sort((a, b) => a - b);
  return counts[Math.min(counts.length, need) - 1] ?? 0;
}

/** Creates an empty tally (see OffenderTally). */
export function createOffenderTally(): OffenderTally {
  const groups = new Map<string, OffenderGroup>();
  const byKind: AnalysisSummary['byKind'] = { xrun: 0, hw_ptr_error: 0, invalid_position: 0 };
  const byClass: AnalysisSummary['byClass'] = {
    kernel: 0,
    idle: 0,
    user: 0,
    none: 0,
    'detector-only': 0,
  };
  const detectorOnly = createDetectorOnlyTally();
  let total = 0;
  // Pruning (see MAX_RANKED_OFFENDERS): events of pruned groups, how many groups went, and
  // the sum of the thresholds used (a ranked count is low by at most this much).
  let unranked = 0;
  let prunedGroups = 0;
  let floor = 0;
  let sigsCapped = false;
  const prune = (): void => {
    const t = pruneThreshold(groups.values(), Math.ceil(groups.size / 2));
    for (const [k, g] of groups) {
      if (g.count > t) continue;
      groups.delete(k);
      unranked += g.count;
      prunedGroups++;
    }
    floor += t;
  };
  const ranks = (): OffenderRank[] => {
    const out: OffenderRank[] = [];
    for (const g of groups.values()) {
      const sigs = [...g.sigs.entries()].sort(
        (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
      );
      const rank: OffenderRank = {
        function: g.function,
        module: g.module,
        signature: sigs[0]![0],
        count: g.count,
        share: total > 0 ? g.count / total : 0,
        signatures: sigs.length,
        lines: [...g.lines],
      };
      if (g.sources.some((s) => s !== '')) rank.sources = [...g.sources];
      out.push(rank);
    }
    out.sort(
      (a, b) =>
        b.count - a.count ||
        (a.function < b.function ? -1 : a.function > b.function ? 1 : 0) ||
        (a.module ?? '').localeCompare(b.module ?? ''),
    );
    return out;
  };
  return {
    add(ev: XrunEvent): void {
      total++;
      byKind[ev.kind]++;
      byClass[ev.offender.class]++;
      detectorOnly.add(ev);
      const o = ev.offender;
      if (o.class !== 'kernel' || o.function === null) return;
      const key = `${o.function}\u0000${o.module ?? ''}`;
      let g = groups.get(key);
      if (!g) {
        if (groups.size >= MAX_RANKED_OFFENDERS) prune();
        g = {
          function: o.function,
          module: o.module,
          count: 0,
          sigs: new Map(),
          lines: [],
          sources: [],
        };
        groups.set(key, g);
      }
      g.count++;
      const seen = g.sigs.get(o.signature);
      if (seen !== undefined) g.sigs.set(o.signature, seen + 1);
      else if (g.sigs.size < MAX_SIGNATURES) g.sigs.set(o.signature, 1);
      else sigsCapped = true;
      if (g.lines.length < MAX_EXAMPLES) {
        g.lines.push(ev.line);
        g.sources.push(ev.source ?? '');
      }
    },
    get events() {
      return total;
    },
    offenders: ranks,
    summary(lines: number): AnalysisSummary {
      const s: AnalysisSummary = {
        events: total,
        byKind: { ...byKind },
        byClass: { ...byClass },
        offenders: groups.size,
        lines,
        rulesVersion: RULES_VERSION,
      };
      const d = detectorOnly.counts();
      if (d) s.detectorOnly = d;
      return s;
    },
    warnings(): string[] {
      const w: string[] = [];
      if (prunedGroups > 0) {
        w.push(
          `more than ${MAX_RANKED_OFFENDERS} distinct offenders (function + module): only the most frequent are ranked (memory bound); ${unranked} event(s) of ${prunedGroups} rarely seen offender group(s) are counted in the summary but not ranked, and the count of an offender first seen after the first pruning may be low by up to ${floor}`,
        );
      }
      if (sigsCapped) {
        w.push(
          `an offender has more than ${MAX_SIGNATURES} distinct signatures: only the first ${MAX_SIGNATURES} are told apart (memory bound)`,
        );
      }
      return w;
    },
  };
}

/** Ranks kernel offenders; callable on merged events (sessions, aggregation). */
export function rankOffenders(events: readonly XrunEvent[]): OffenderRank[] {
  const tally = createOffenderTally();
  for (const ev of events) tally.add(ev);
  return tally.offenders();
}

/** Per-kind and per-class counts for the report header and `--json` summary. */
export function summarize(
  events: readonly XrunEvent[],
  offenders: readonly OffenderRank[],
  lines = 0,
): AnalysisSummary {
  const s: AnalysisSummary = {
    events: events.length,
    byKind: { xrun: 0, hw_ptr_error: 0, invalid_position: 0 },
    byClass: { kernel: 0, idle: 0, user: 0, none: 0, 'detector-only': 0 },
    offenders: offenders.length,
    lines,
    rulesVersion: RULES_VERSION,
  };
  const detectorOnly = createDetectorOnlyTally();
  for (const e of events) {
    s.byKind[e.kind]++;
    s.byClass[e.offender.class]++;
    detectorOnly.add(e);
  }
  const d = detectorOnly.counts();
  if (d) s.detectorOnly = d;
  return s;
}
