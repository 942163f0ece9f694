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
      g.sigs.set(o.signature, (g.sigs.get(o.signature) ?? 0) + 1);
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
