// The offender ranking of a run as a rolling aggregate: constant memory per offender, so a
// watch that runs for days ranks every event without keeping them. Gives what
// analysis/rank.ts's rankOffenders gives for the same events (a test holds them equal).
import type { OffenderRank, XrunEvent } from '../analysis/index.js';

/** Example lines kept per offender (as rankOffenders keeps). */
const MAX_EXAMPLES = 10;

interface Group {
  function: string;
  module: string | null;
  count: number;
  sigs: Map<string, number>;
  lines: number[];
  sources: string[];
}

export interface RollingOffenderRanking {
  add(event: Pick<XrunEvent, 'offender' | 'line' | 'source'>): void;
  /** Events added (kernel or not: shares are of all events). */
  readonly total: number;
  rank(): OffenderRank[];
}

/** Creates an empty rolling ranking. */
export function createRollingRanking(): RollingOffenderRanking {
  const groups = new Map<string, Group>();
  let total = 0;
  return {
    add(ev) {
      total++;
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
    get total() {
      return total;
    },
    rank() {
      const out = [...groups.values()].map((g): OffenderRank => {
        const sigs = [...g.sigs.entries()].sort(
          (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
        );
        const r: OffenderRank = {
          function: g.function,
          module: g.module,
          signature: sigs[0]![0],
          count: g.count,
          share: total > 0 ? g.count / total : 0,
          signatures: sigs.length,
          lines: [...g.lines],
        };
        if (g.sources.some((s) => s !== '')) r.sources = [...g.sources];
        return r;
      });
      return out.sort(
        (a, b) =>
          b.count - a.count ||
          (a.function < b.function ? -1 : a.function > b.function ? 1 : 0) ||
          (a.module ?? '').localeCompare(b.module ?? ''),
      );
    },
  };
}
