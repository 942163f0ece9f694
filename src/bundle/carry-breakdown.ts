// Pure: the flight recorder's per-XRUN breakdowns (recorder/breakdown-types.ts) and a run's
// detections as bundle format 2 carries them. Bounded (MAX_PARTS largest parts, MAX_STACK frames,
// texts cut to the schema's lengths) so a bundle written here always validates, and each
// breakdown is attached to the kernel event it explains: the XRUN event whose kernel time,
// moved onto CLOCK_MONOTONIC (the recorder's trace clock) with the capture's offset, is nearest
// the recorder hit within MATCH_WINDOW_S. What no event matches stays in the run's `unmatched`.
import type { Detection } from '../analysis/types.js';
import type { RecorderExplanation } from '../recorder/explain-windows.js';
import type { BreakdownPart, XrunBreakdown } from '../recorder/breakdown-types.js';
import type { BlockerRank } from '../recorder/breakdown-summary.js';
import {
  MAX_BLOCKERS,
  MAX_BREAKDOWNS,
  MAX_PARTS,
  MAX_STACK,
  type BundleBlocker,
  type BundleBreakdown,
  type BundleBreakdownPart,
  type BundleDetection,
  type BundleRunBreakdown,
} from './schema-breakdown.js';

/** A recorder hit and a kernel event this close (seconds, after the clock offset) are one XRUN. */
export const MATCH_WINDOW_S = 0.01;

const cut = (s: string, n: number): string => (s.length > n ? s.slice(0, n) : s);
const stackOf = (s: readonly string[] | undefined): { stack?: string[] } =>
  s && s.length > 0 ? { stack: s.slice(0, MAX_STACK).map((f) => cut(f, 512)) } : {};
const nonNeg = (x: number): number => (Number.isFinite(x) && x > 0 ? x : 0);

function part(p: BreakdownPart): BundleBreakdownPart {
  return {
    kind: p.kind,
    name: cut(p.name, 256),
    ...(p.pid !== undefined ? { pid: Math.max(-1, Math.trunc(p.pid)) } : {}),
    ...(p.prio !== undefined ? { prio: Math.trunc(p.prio) } : {}),
    ...(p.cpu !== undefined && p.cpu >= 0 ? { cpu: Math.trunc(p.cpu) } : {}),
    ms: nonNeg(p.ms),
    share: nonNeg(p.share),
    ...stackOf(p.stack),
  };
}

/** One breakdown in bundle form: the largest MAX_PARTS parts, stacks and names bounded. */
export function toBundleBreakdown(b: XrunBreakdown): BundleBreakdown {
  const parts = [...b.parts].sort((x, y) => y.ms - x.ms).slice(0, MAX_PARTS);
  return {
    ts: b.ts,
    shape: b.shape,
    detector: {
      comm: cut(b.detector.comm, 64),
      pid: Math.max(-1, b.detector.pid),
      cpu: Math.max(0, b.detector.cpu),
    },
    late: { comm: cut(b.late.comm, 64), pid: Math.max(-1, b.late.pid), role: b.late.role },
    dueTs: b.dueTs,
    latenessMs: nonNeg(b.latenessMs),
    parts: parts.map(part),
    cls: b.cls,
    summary: cut(b.summary, 1024),
    complete: b.complete,
    ...(b.missing !== undefined ? { missing: cut(b.missing, 1024) } : {}),
    ...(b.ownSleep !== undefined
      ? {
          ownSleep: {
            ms: nonNeg(b.ownSleep.ms),
            wokenBy: cut(b.ownSleep.wokenBy, 128),
            wokeAfterHit: b.ownSleep.wokeAfterHit,
            ...(b.ownSleep.askedMs !== undefined ? { askedMs: nonNeg(b.ownSleep.askedMs) } : {}),
            ...(b.ownSleep.timerLateMs !== undefined
              ? { timerLateMs: nonNeg(b.ownSleep.timerLateMs) }
              : {}),
          },
        }
      : {}),
  };
}

/** A detection in bundle form (task and frame names bounded). */
export function toBundleDetection(d: Detection): BundleDetection {
  return {
    context: d.context,
    ...(d.task ? { task: { comm: cut(d.task.comm, 64), pid: Math.max(0, d.task.pid) } } : {}),
    ...(d.via !== undefined ? { via: cut(d.via, 256) } : {}),
    evidence: d.evidence,
  };
}

function blocker(r: BlockerRank): BundleBlocker {
  return {
    kind: r.kind,
    name: cut(r.name, 256),
    ...(r.prio !== undefined ? { prio: Math.trunc(r.prio) } : {}),
    totalMs: nonNeg(r.totalMs),
    share: nonNeg(r.share),
    count: r.count,
    topCount: r.topCount,
    ...stackOf(r.stack),
  };
}

/** The kernel events' side of the match: kind and kernel time (null: no timestamp). */
export interface MatchableEvent {
  kind: string;
  time: number | null;
}

/**
 * Attaches each breakdown to the nearest XRUN event (one each, nearest pairs first) within
 * MATCH_WINDOW_S once the kernel time is on CLOCK_MONOTONIC (`offsetNs`: MONOTONIC minus the
 * kernel log clock; null: not aligned, nothing matches). Returns the breakdown index per event.
 */
export function matchBreakdowns(
  events: readonly MatchableEvent[],
  breakdowns: readonly { ts: number }[],
  offsetNs: number | null,
): (number | null)[] {
  const out: (number | null)[] = events.map(() => null);
  if (offsetNs === null) return out;
  const pairs: { e: number; b: number; d: number }[] = [];
  events.forEach((ev, e) => {
    if (ev.kind !== 'xrun' || ev.time === null) return;
    const mono = ev.time + offsetNs / 1e9;
    breakdowns.forEach((bd, b) => {
      const d = Math.abs(bd.ts - mono);
      if (d <= MATCH_WINDOW_S) pairs.push({ e, b, d });
    });
  });
  pairs.sort((x, y) => x.d - y.d || x.e - y.e);
  const used = new Set<number>();
  for (const p of pairs) {
    if (out[p.e] !== null || used.has(p.b)) continue;
    out[p.e] = p.b;
    used.add(p.b);
  }
  return out;
}

/** The run's breakdown summary in bundle form, with the breakdowns no event took. */
export function toBundleRunBreakdown(
  x: RecorderExplanation,
  matched: readonly (number | null)[],
): BundleRunBreakdown {
  const taken = new Set(matched.filter((m): m is number => m !== null));
  const s = x.summary;
  return {
    xruns: s.xruns,
    complete: s.complete,
    completeShare: Math.min(1, nonNeg(s.completeShare)),
    byClass: { ...s.byClass },
    byShape: { ...s.byShape },
    totalLatenessMs: nonNeg(s.totalLatenessMs),
    meanLatenessMs: nonNeg(s.meanLatenessMs),
    blockers: s.blockers.slice(0, MAX_BLOCKERS).map(blocker),
    unreadable: x.unreadable,
    unmatched: x.breakdowns
      .filter((_, i) => !taken.has(i))
      .slice(0, Math.max(0, MAX_BREAKDOWNS - taken.size))
      .map(toBundleBreakdown),
  };
}
