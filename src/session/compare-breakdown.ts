// Pure: the flight recorder's breakdown classes of two bundles side by side (`compare A B`):
// how many XRUNs of each class (blocked-by-task, irq-latency, …) each side explained, and each
// side's largest blocker. From the run's summary in a format 2 bundle, else from its events'
// breakdowns; absent when neither side carries any.
import type { Bundle } from '../bundle/index.js';
import { BREAKDOWN_CLASSES, type BundleBreakdownClass } from '../bundle/schema-breakdown.js';

export interface BreakdownSide {
  /** Breakdowns the side carries (XRUNs the recorder explained). */
  xruns: number;
  byClass: Partial<Record<BundleBreakdownClass, number>>;
  /** The blocker with the most net time ("task dd (prio 120)"), null when none. */
  topBlocker: { kind: string; name: string; prio?: number; share: number } | null;
}

export interface ComparedBreakdownClass {
  class: BundleBreakdownClass;
  a: number;
  b: number;
  /** Share of the side's breakdowns (0..1; 0 when the side has none). */
  aShare: number;
  bShare: number;
}

export interface ComparedBreakdowns {
  a: BreakdownSide;
  b: BreakdownSide;
  /** Classes either side has, in the format's class order. */
  classes: ComparedBreakdownClass[];
}

/** One bundle's breakdown counts (null: it carries no breakdown). */
export function breakdownSide(bundle: Bundle): BreakdownSide | null {
  const run = bundle.breakdown;
  if (run) {
    const top = run.blockers[0];
    return {
      xruns: run.xruns,
      byClass: { ...run.byClass },
      topBlocker: top
        ? {
            kind: top.kind,
            name: top.name,
            ...(top.prio !== undefined ? { prio: top.prio } : {}),
            share: top.share,
          }
        : null,
    };
  }
  const list = bundle.events.flatMap((e) => (e.breakdown ? [e.breakdown] : []));
  if (list.length === 0) return null;
  const byClass: Partial<Record<BundleBreakdownClass, number>> = {};
  for (const b of list) byClass[b.cls] = (byClass[b.cls] ?? 0) + 1;
  return { xruns: list.length, byClass, topBlocker: null };
}

const EMPTY: BreakdownSide = { xruns: 0, byClass: {}, topBlocker: null };

/** The breakdown classes of A and B (null when neither bundle carries a breakdown). */
export function compareBreakdowns(a: Bundle, b: Bundle): ComparedBreakdowns | null {
  const sa = breakdownSide(a);
  const sb = breakdownSide(b);
  if (!sa && !sb) return null;
  const x = sa ?? EMPTY;
  const y = sb ?? EMPTY;
  const share = (n: number, of: number): number => (of > 0 ? n / of : 0);
  const classes = BREAKDOWN_CLASSES.filter(
    (c) => (x.byClass[c] ?? 0) > 0 || (y.byClass[c] ?? 0) > 0,
  ).map((c) => ({
    class: c,
    a: x.byClass[c] ?? 0,
    b: y.byClass[c] ?? 0,
    aShare: share(x.byClass[c] ?? 0, x.xruns),
    bShare: share(y.byClass[c] ?? 0, y.xruns),
  }));
  return { a: x, b: y, classes };
}
