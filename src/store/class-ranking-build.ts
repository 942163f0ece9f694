// Pure: the fleet ranking per class (`aggregate --by class`, `aggregate --class C`) from the rows
// of class-ranking-sql.ts. Every backend hands its rows here, so SQLite and PostgreSQL rank with
// the same arithmetic, order and tie-breaks. Counts arrive as numbers or numeric text (drivers
// differ) and are read with Number().
import { BREAKDOWN_CLASSES } from '../bundle/schema-breakdown.js';
import { BUNDLE_OFFENDER_CLASSES } from '../bundle/schema.js';

/** Every class the per-class ranking knows: offender classes, then breakdown classes. */
export const RANKING_CLASSES: readonly string[] = [
  ...BUNDLE_OFFENDER_CLASSES,
  ...BREAKDOWN_CLASSES,
];

type Num = number | string | null;

export interface CulpritRow {
  cls: string;
  culprit: string;
  n: Num;
  machines: Num;
  first: Num;
  last: Num;
}
export interface ClassMachinesRow {
  cls: string;
  machines: Num;
}
export interface TotalsRow {
  bundles: Num;
  machines: Num;
  ms: Num;
  /** Events of every class in range (the share's denominator, also under --class). */
  events: Num;
}

/** One culprit of a class: a breakdown's largest part, or an offender signature. */
export interface CulpritRank {
  /** "task dd (prio 120)", "irq-latency test_unlock", or a signature; "" when none. */
  culprit: string;
  incidents: number;
  machines: number;
  /** incidents / the class's incidents (0..1). */
  share: number;
  firstSeen: string;
  lastSeen: string;
}

export interface ClassRank {
  class: string;
  /** Whether the class comes from flight recorder breakdowns (format 2) or the stack. */
  source: 'breakdown' | 'stack';
  incidents: number;
  machines: number;
  /** Incidents per hour of playback over all bundles in range. */
  perMachineHour: number;
  /** incidents / all events in range, of every class (0..1). */
  share: number;
  culprits: CulpritRank[];
  /** Culprits left out by --top. */
  more: number;
}

export interface ClassRanking {
  sinceMs: number | null;
  /** --class: the one class asked for, null for all. */
  only: string | null;
  bundles: number;
  machines: number;
  playbackHours: number;
  events: number;
  classes: ClassRank[];
}

const num = (v: Num): number => (v === null ? 0 : Number(v));
const iso = (ms: number): string => new Date(ms).toISOString();
const BREAKDOWN = new Set<string>(BREAKDOWN_CLASSES);

/** Builds the per-class ranking; `top` bounds the culprits listed per class. */
export function buildClassRanking(r: {
  sinceMs: number | null;
  only: string | null;
  top: number;
  culprits: readonly CulpritRow[];
  classes: readonly ClassMachinesRow[];
  totals: TotalsRow | undefined;
}): ClassRanking {
  const hours = num(r.totals?.ms ?? null) / 3_600_000;
  const machinesOf = new Map(r.classes.map((c) => [c.cls, num(c.machines)]));
  const byClass = new Map<string, CulpritRow[]>();
  for (const row of r.culprits) {
    const list = byClass.get(row.cls) ?? [];
    list.push(row);
    byClass.set(row.cls, list);
  }
  const events = num(r.totals?.events ?? null);
  const classes: ClassRank[] = [...byClass.entries()].map(([cls, rows]) => {
    const incidents = rows.reduce((s, x) => s + num(x.n), 0);
    const culprits = rows
      .map((x) => ({
        culprit: x.culprit,
        incidents: num(x.n),
        machines: num(x.machines),
        share: incidents > 0 ? num(x.n) / incidents : 0,
        firstSeen: iso(num(x.first)),
        lastSeen: iso(num(x.last)),
      }))
      .sort(
        (a, b) =>
          b.incidents - a.incidents ||
          b.machines - a.machines ||
          (a.culprit < b.culprit ? -1 : a.culprit > b.culprit ? 1 : 0),
      );
    return {
      class: cls,
      source: BREAKDOWN.has(cls) ? ('breakdown' as const) : ('stack' as const),
      incidents,
      machines: machinesOf.get(cls) ?? 0,
      perMachineHour: hours > 0 ? incidents / hours : 0,
      share: events > 0 ? incidents / events : 0,
      culprits: culprits.slice(0, r.top),
      more: Math.max(0, culprits.length - r.top),
    };
  });
  classes.sort(
    (a, b) => b.incidents - a.incidents || (a.class < b.class ? -1 : a.class > b.class ? 1 : 0),
  );
  return {
    sinceMs: r.sinceMs,
    only: r.only,
    bundles: num(r.totals?.bundles ?? null),
    machines: num(r.totals?.machines ?? null),
    playbackHours: hours,
    events,
    classes,
  };
}
