// Pure: the fleet ranking built from the rows a store's queries return (denominators per
// group, one row per group × class × signature × facet combination, distinct machines per
// signature). Every backend (SQLite, PostgreSQL) runs its own SQL and hands the rows here,
// so both rank with exactly the same arithmetic, ordering and tie-breaks.
import type {
  FleetRanking,
  GroupBy,
  RankingGroup,
  SignatureRank,
  ValueCount,
} from '../bundle/store.js';

/** Per group: bundles, distinct machines and playback ms (the denominators). */
export interface GroupRow {
  grp: string;
  bundles: number;
  machines: number;
  ms: number | null;
}

/** grp, class, signature, kernel, driver, preempt, load, n, first ms, last ms, stack id, function, module. */
export type FacetRow = [
  string,
  string,
  string | null,
  string,
  string,
  string,
  string,
  number,
  number,
  number,
  number,
  string | null,
  string | null,
];

/** grp, signature, distinct machines. */
export type MachineRow = [string, string, number];

export interface RankingRows {
  by: GroupBy | null;
  sinceMs: number | null;
  top: number;
  groups: GroupRow[];
  facets: FacetRow[];
  machines: MachineRow[];
  rulesVersion: string | null;
  rulesVersions: ValueCount[];
}

/** A ranking whose example stacks are still ids: the store looks their frames up, then finish(). */
export interface PendingRanking {
  stackIds: number[];
  finish(framesOf: ReadonlyMap<number, string>): FleetRanking;
}

const isoOf = (ms: number): string => new Date(ms).toISOString();

function bump(map: Map<string, number>, key: string, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

const sortedCounts = (m: Map<string, number>): ValueCount[] =>
  [...m.entries()]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));

interface Acc {
  grp: string;
  signature: string;
  function: string | null;
  module: string | null;
  incidents: number;
  machines: number;
  stack: number;
  kernels: Map<string, number>;
  drivers: Map<string, number>;
  preempts: Map<string, number>;
  loads: Map<string, number>;
  first: { ms: number; release: string };
  last: { ms: number; release: string };
}

const emptyGroup = (key: string | null): RankingGroup => ({
  key,
  bundles: 0,
  machines: 0,
  playbackHours: 0,
  classes: { kernel: 0, idle: 0, user: 0, none: 0 },
  signatures: [],
  more: 0,
});

/**
 * Folds the query rows into ranked groups. Exists so the ranking rules (what counts as an
 * incident, how ties break, what --top leaves out) live once for every store backend.
 */
export function buildRanking(rows: RankingRows): PendingRanking {
  const { by, top } = rows;
  const groups = new Map<string, RankingGroup>();
  for (const r of rows.groups) {
    if (by === null && r.bundles === 0) continue;
    groups.set(r.grp, {
      ...emptyGroup(by === null ? null : r.grp),
      bundles: r.bundles,
      machines: r.machines,
      playbackHours: (r.ms ?? 0) / 3_600_000,
    });
  }
  const groupOf = (grp: string): RankingGroup => {
    let g = groups.get(grp);
    if (!g) {
      // An event key with no denominator row (e.g. a phase name that is not a phase kind).
      g = emptyGroup(by === null ? null : grp);
      groups.set(grp, g);
    }
    return g;
  };

  const accs = new Map<string, Acc>();
  for (const [
    grp,
    cls,
    signature,
    kernel,
    driver,
    preempt,
    load,
    n,
    first,
    last,
    stack,
    fn,
    mod,
  ] of rows.facets) {
    const g = groupOf(grp);
    if (cls in g.classes) g.classes[cls as keyof RankingGroup['classes']] += n;
    if (cls !== 'kernel' || signature === null) continue;
    const k = `${grp}\u0000${signature}`;
    let a = accs.get(k);
    if (!a) {
      a = {
        grp,
        signature,
        function: fn,
        module: mod,
        incidents: 0,
        machines: 0,
        stack,
        kernels: new Map(),
        drivers: new Map(),
        preempts: new Map(),
        loads: new Map(),
        first: { ms: first, release: kernel },
        last: { ms: last, release: kernel },
      };
      accs.set(k, a);
    }
    a.incidents += n;
    if (stack > a.stack) a.stack = stack;
    bump(a.kernels, kernel, n);
    bump(a.drivers, driver, n);
    bump(a.preempts, preempt, n);
    bump(a.loads, load, n);
    if (first < a.first.ms) a.first = { ms: first, release: kernel };
    if (last > a.last.ms) a.last = { ms: last, release: kernel };
  }

  const machinesOf = new Map(rows.machines.map(([grp, sig, m]) => [`${grp}\u0000${sig}`, m]));
  const byGroup = new Map<string, Acc[]>();
  for (const [k, a] of accs) {
    const list = byGroup.get(a.grp) ?? [];
    list.push(a);
    byGroup.set(a.grp, list);
    a.machines = machinesOf.get(k) ?? 0;
  }
  const kept = new Map<string, Acc[]>();
  const stackIds = new Set<number>();
  for (const [grp, list] of byGroup) {
    list.sort(
      (a, b) =>
        b.incidents - a.incidents ||
        b.machines - a.machines ||
        a.signature.localeCompare(b.signature),
    );
    const keep = list.slice(0, top);
    groupOf(grp).more = list.length - keep.length;
    kept.set(grp, keep);
    for (const a of keep) stackIds.add(a.stack);
  }

  return {
    stackIds: [...stackIds],
    finish(framesOf): FleetRanking {
      for (const [grp, keep] of kept) {
        const g = groupOf(grp);
        g.signatures = keep.map((r): SignatureRank => ({
          signature: r.signature,
          function: r.function,
          module: r.module,
          incidents: r.incidents,
          machines: r.machines,
          perMachineHour: g.playbackHours > 0 ? r.incidents / g.playbackHours : 0,
          share: g.classes.kernel > 0 ? r.incidents / g.classes.kernel : 0,
          kernels: {
            first: { release: r.first.release, at: isoOf(r.first.ms) },
            last: { release: r.last.release, at: isoOf(r.last.ms) },
            list: sortedCounts(r.kernels),
          },
          drivers: sortedCounts(r.drivers),
          preempts: sortedCounts(r.preempts),
          loads: sortedCounts(r.loads),
          exampleStack: JSON.parse(framesOf.get(r.stack) ?? '[]') as string[],
        }));
      }
      const ordered = [...groups.values()].sort(
        (a, b) =>
          b.classes.kernel - a.classes.kernel ||
          b.bundles - a.bundles ||
          String(a.key).localeCompare(String(b.key)),
      );
      return {
        by,
        sinceMs: rows.sinceMs,
        rulesVersion: rows.rulesVersion,
        rulesVersions: rows.rulesVersions,
        groups: ordered,
      };
    },
  };
}
