// The FleetReader's queries, once, over any SQL database holding the fleet store's tables:
// the embedded SQLite store (sqlite-fleet-reader.ts) and the shared PostgreSQL store
// (src/store/postgres-fleet-reader.ts) run the same statements through a FleetSql, which
// says only what differs: how a statement runs, how text compares bytewise, whether the
// machines table counts exactly the stored bundles' machines, and what marks a change.
// Queries scan the events table with the filter's clauses (fleet-filter-sql.ts); the fleet
// ranking without card, capture-backend or time filters reads the rollup tables the ingest
// keeps, so the default fleet page stays fast at a million bundles. Every tie is broken by
// content (signature, frames), never by a row id, so both stores give the same answer.
import type { BundleOffenderClass } from '../bundle/schema.js';
import { BUNDLE_OFFENDER_CLASSES } from '../bundle/schema.js';
import type {
  FilterValues,
  FlameQuery,
  FlameStacks,
  FleetFilter,
  FleetRankingResult,
  FleetReader,
  FleetTotals,
  KernelPoint,
  KernelTrend,
  OffenderRow,
  RankingQuery,
  SignatureDetail,
  SignatureQuery,
  StackCount,
  TrendQuery,
  ValueCount,
} from './fleet-reader.js';
import { compareKernelReleases } from './kernel-order.js';
import { filterSql, rollupAnswers, type SqlParams } from './fleet-filter-sql.js';

/** What the shared queries need of one database connection. */
export interface FleetSql {
  /** Runs one statement with @name parameters; numbers come back as numbers. */
  all<T>(sql: string, params: SqlParams): Promise<T[]>;
  /** `expr` compared byte by byte (SQLite's default; PostgreSQL's COLLATE "C"). */
  binary(expr: string): string;
  /** Whether `machines` holds exactly the stored bundles' machine ids (no leftovers). */
  machinesTableExact: boolean;
  /** A value that changes whenever the store's answers may change. */
  changeMark(): Promise<string>;
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

const emptyClasses = (): Record<BundleOffenderClass, number> => ({
  kernel: 0,
  idle: 0,
  user: 0,
  none: 0,
  'detector-only': 0,
});

const isClass = (c: string): c is BundleOffenderClass =>
  (BUNDLE_OFFENDER_CLASSES as readonly string[]).includes(c);

const perHour = (n: number, hours: number): number => (hours > 0 ? n / hours : 0);

function sortedCounts(m: Map<string, number>): ValueCount[] {
  return [...m.entries()]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

interface DenominatorRow {
  grp: string;
  bundles: number;
  machines: number;
  ms: number | null;
}

// Answers kept per reader (the last queries asked); dropped whenever the store changes.
const CACHE_MAX = 64;

/** FleetReader over the fleet store's tables in whichever database `sql` reaches. */
export class SqlFleetReader implements FleetReader {
  private readonly sql: FleetSql;
  private readonly cache = new Map<string, unknown>();
  private cachedMark: string | null = null;

  constructor(sql: FleetSql) {
    this.sql = sql;
  }

  /**
   * The answer to a query, computed once per store state: a store changes only when an
   * ingest commits (the FleetSql's change mark says so), so a page asked again (a reload, the
   * filter controls' values on every page) costs one cheap query until then.
   */
  private async memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const mark = await this.sql.changeMark();
    if (mark !== this.cachedMark) {
      this.cache.clear();
      this.cachedMark = mark;
    }
    if (this.cache.has(key)) {
      const hit = this.cache.get(key) as T;
      this.cache.delete(key);
      this.cache.set(key, hit);
      return structuredClone(hit);
    }
    const value = await compute();
    this.cache.set(key, value);
    if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    return structuredClone(value);
  }

  private all<T>(sql: string, params: SqlParams): Promise<T[]> {
    return this.sql.all<T>(sql, params);
  }

  /** Bundles, machines and playback of the filtered bundles, per kernel release or in all. */
  private async denominators(filter: FleetFilter, perKernel: boolean): Promise<DenominatorRow[]> {
    const f = filterSql(filter);
    if (!perKernel && f.bundleWhere === 'TRUE') {
      // The whole store: every stored bundle's machine is in `machines` (where that table
      // holds nothing else), so no DISTINCT over the bundles.
      const machines = this.sql.machinesTableExact
        ? '(SELECT COUNT(*) FROM machines)'
        : 'COUNT(DISTINCT machine_id)';
      return this.all<DenominatorRow>(
        `SELECT '' AS grp, COUNT(*) AS bundles, ${machines} AS machines,
           SUM(playback_ms) AS ms FROM bundles`,
        {},
      );
    }
    const grp = perKernel ? 'b.kernel_release' : "''";
    return this.all<DenominatorRow>(
      `SELECT ${grp} AS grp, COUNT(*) AS bundles, COUNT(DISTINCT b.machine_id) AS machines,
         SUM(b.playback_ms) AS ms FROM bundles b WHERE ${f.bundleWhere} GROUP BY 1`,
      f.params,
    );
  }

  private async totals(filter: FleetFilter): Promise<FleetTotals> {
    const d = (await this.denominators(filter, false))[0];
    const f = filterSql(filter);
    const table = rollupAnswers(filter) ? 'rollup' : 'events';
    const count = table === 'rollup' ? 'SUM(n)' : 'COUNT(*)';
    const classes = emptyClasses();
    for (const r of await this.all<{ class: string; n: number }>(
      `SELECT class, ${count} AS n FROM ${table} WHERE ${f.eventWhere} GROUP BY class`,
      f.params,
    )) {
      if (isClass(r.class)) classes[r.class] = r.n;
    }
    return {
      bundles: d?.bundles ?? 0,
      machines: d?.machines ?? 0,
      playbackHours: (d?.ms ?? 0) / HOUR_MS,
      classes,
    };
  }

  async filterValues(): Promise<FilterValues> {
    return this.memo(`filterValues:${JSON.stringify(null)}`, () => this.filterValuesNow());
  }

  private async filterValuesNow(): Promise<FilterValues> {
    const counts = async (sql: string): Promise<ValueCount[]> =>
      sortedCounts(new Map((await this.all<ValueCount>(sql, {})).map((r) => [r.value, r.count])));
    // One scan of the bundles for the three bundle-level facets and the time range.
    const kernels = new Map<string, number>();
    const preempts = new Map<string, number>();
    const backends = new Map<string, number>();
    let firstMs: number | null = null;
    let lastMs: number | null = null;
    for (const r of await this.all<{
      k: string;
      p: string;
      cb: string;
      n: number;
      lo: number;
      hi: number;
    }>(
      `SELECT kernel_release AS k, preempt AS p, capture_backend AS cb, COUNT(*) AS n,
         MIN(created_ms) AS lo, MAX(created_ms) AS hi FROM bundles GROUP BY 1, 2, 3`,
      {},
    )) {
      kernels.set(r.k, (kernels.get(r.k) ?? 0) + r.n);
      preempts.set(r.p, (preempts.get(r.p) ?? 0) + r.n);
      backends.set(r.cb, (backends.get(r.cb) ?? 0) + r.n);
      firstMs = firstMs === null ? r.lo : Math.min(firstMs, r.lo);
      lastMs = lastMs === null ? r.hi : Math.max(lastMs, r.hi);
    }
    return {
      kernelReleases: sortedCounts(kernels).sort((a, b) => compareKernelReleases(a.value, b.value)),
      preempts: sortedCounts(preempts),
      drivers: await counts(
        'SELECT driver AS value, COUNT(*) AS count FROM bundle_drivers GROUP BY 1',
      ),
      cards: await counts('SELECT card AS value, COUNT(*) AS count FROM bundle_cards GROUP BY 1'),
      captureBackends: sortedCounts(backends),
      offenderClasses: await counts(
        'SELECT class AS value, SUM(n) AS count FROM rollup GROUP BY 1',
      ),
      breakdownClasses: await counts(
        `SELECT breakdown_class AS value, COUNT(*) AS count FROM events
         WHERE breakdown_class IS NOT NULL GROUP BY 1`,
      ),
      timeRange: firstMs === null || lastMs === null ? null : { firstMs, lastMs },
    };
  }

  async ranking(query: RankingQuery): Promise<FleetRankingResult> {
    return this.memo(`ranking:${JSON.stringify(query)}`, () => this.rankingNow(query));
  }

  private async rankingNow(query: RankingQuery): Promise<FleetRankingResult> {
    const { filter } = query;
    const limit = query.limit ?? 50;
    const totals = await this.totals(filter);
    const f = filterSql(filter);
    const useRollup = rollupAnswers(filter);
    const fn = `MIN(${this.sql.binary('function')}) AS function, MIN(${this.sql.binary('module')}) AS module`;
    type Row = {
      class: string;
      signature: string | null;
      function: string | null;
      module: string | null;
      n: number;
      first: number;
      last: number;
      machines: number | null;
    };
    const rows = useRollup
      ? await this.all<Row>(
          `SELECT class, NULLIF(signature, '') AS signature, ${fn}, SUM(n) AS n,
             MIN(first_ms) AS first, MAX(last_ms) AS last, NULL AS machines
           FROM rollup WHERE ${f.eventWhere} AND ${f.classWhere} GROUP BY class, signature`,
          f.params,
        )
      : await this.all<Row>(
          `SELECT class, signature, ${fn}, COUNT(*) AS n, MIN(created_ms) AS first,
             MAX(created_ms) AS last, COUNT(DISTINCT machine) AS machines
           FROM events WHERE ${f.eventWhere} AND ${f.classWhere} GROUP BY class, signature`,
          f.params,
        );
    if (useRollup) await this.fillRollupMachines(rows, filter);
    const all = rows.reduce((s, r) => s + r.n, 0);
    const ranked: OffenderRow[] = rows
      .filter((r) => isClass(r.class))
      .map((r) => ({
        class: r.class as BundleOffenderClass,
        signature: r.signature,
        function: r.function,
        module: r.module,
        incidents: r.n,
        machines: r.machines ?? 0,
        perMachineHour: perHour(r.n, totals.playbackHours),
        share: all > 0 ? r.n / all : 0,
        firstSeenMs: r.first,
        lastSeenMs: r.last,
      }))
      .sort(
        (a, b) =>
          b.incidents - a.incidents ||
          b.machines - a.machines ||
          String(a.signature ?? a.class).localeCompare(String(b.signature ?? b.class)),
      );
    return { totals, rows: ranked.slice(0, limit), more: Math.max(0, ranked.length - limit) };
  }

  /** Machines per ranked row from the machine rollups (events for rows they do not hold). */
  private async fillRollupMachines(
    rows: { class: string; signature: string | null; machines: number | null }[],
    filter: FleetFilter,
  ): Promise<void> {
    const f = filterSql(filter);
    const unfiltered = f.eventWhere === 'TRUE';
    const sigMachines = new Map(
      (
        await this.all<{ signature: string; m: number }>(
          unfiltered
            ? 'SELECT signature, COUNT(*) AS m FROM rollup_sig_machines GROUP BY signature'
            : `SELECT signature, COUNT(DISTINCT machine) AS m FROM rollup_machines
               WHERE ${f.eventWhere} GROUP BY signature`,
          f.params,
        )
      ).map((r) => [r.signature, r.m]),
    );
    const rest: typeof rows = [];
    for (const r of rows) {
      if (r.class === 'kernel' && r.signature !== null)
        r.machines = sigMachines.get(r.signature) ?? 0;
      else rest.push(r);
    }
    if (rest.length === 0) return;
    // Non-kernel classes and unsigned kernel events: no machine rollup, count from events.
    const other = new Map(
      (
        await this.all<{ class: string; signature: string | null; m: number }>(
          `SELECT class, signature, COUNT(DISTINCT machine) AS m FROM events
           WHERE ${f.eventWhere} AND (class <> 'kernel' OR signature IS NULL)
           GROUP BY class, signature`,
          f.params,
        )
      ).map((r) => [`${r.class}\u0000${r.signature ?? ''}`, r.m]),
    );
    for (const r of rest) r.machines = other.get(`${r.class}\u0000${r.signature ?? ''}`) ?? 0;
  }

  /** Kernel points in version order: one per filtered release, incidents from `incidentSql`. */
  private kernelPoints(
    denominators: DenominatorRow[],
    incidents: Map<string, { n: number; machines: number; first: number; last: number }>,
  ): KernelPoint[] {
    return denominators
      .map((d) => {
        const i = incidents.get(d.grp);
        const hours = (d.ms ?? 0) / HOUR_MS;
        return {
          release: d.grp,
          bundles: d.bundles,
          machines: d.machines,
          playbackHours: hours,
          incidents: i?.n ?? 0,
          affectedMachines: i?.machines ?? 0,
          perMachineHour: perHour(i?.n ?? 0, hours),
          firstSeenMs: i?.first ?? null,
          lastSeenMs: i?.last ?? null,
        };
      })
      .sort((a, b) => compareKernelReleases(a.release, b.release));
  }

  async signature(query: SignatureQuery): Promise<SignatureDetail | null> {
    return this.memo(`signature:${JSON.stringify(query)}`, () => this.signatureNow(query));
  }

  private async signatureNow(query: SignatureQuery): Promise<SignatureDetail | null> {
    const f = filterSql(query.filter);
    const params = { ...f.params, sig: query.signature };
    const where = `${f.eventWhere} AND ${f.classWhere} AND signature = @sig`;
    const [head] = await this.all<{
      n: number;
      machines: number;
      first: number | null;
      last: number | null;
      function: string | null;
      module: string | null;
    }>(
      `SELECT COUNT(*) AS n, COUNT(DISTINCT machine) AS machines, MIN(created_ms) AS first,
         MAX(created_ms) AS last, MIN(${this.sql.binary('function')}) AS function,
         MIN(${this.sql.binary('module')}) AS module
       FROM events WHERE ${where}`,
      params,
    );
    if (!head || head.n === 0 || head.first === null || head.last === null) return null;
    const perKernel = new Map(
      (
        await this.all<{ grp: string; n: number; machines: number; first: number; last: number }>(
          `SELECT kernel_release AS grp, COUNT(*) AS n, COUNT(DISTINCT machine) AS machines,
             MIN(created_ms) AS first, MAX(created_ms) AS last
           FROM events WHERE ${where} GROUP BY 1`,
          params,
        )
      ).map((r) => [r.grp, r]),
    );
    const kernels = this.kernelPoints(await this.denominators(query.filter, true), perKernel);
    const seen = kernels.filter((k) => k.incidents > 0);
    const lastIdx = kernels.findIndex((k) => k === seen[seen.length - 1]);
    const after = kernels.slice(lastIdx + 1).find((k) => k.bundles > 0);
    const facets = {
      drivers: new Map<string, number>(),
      cards: new Map<string, number>(),
      preempts: new Map<string, number>(),
      loads: new Map<string, number>(),
      captureBackends: new Map<string, number>(),
      breakdownClasses: new Map<string, number>(),
    };
    for (const r of await this.all<{
      d: string;
      c: string;
      p: string;
      l: string;
      cb: string;
      bc: string | null;
      n: number;
    }>(
      `SELECT driver AS d, card AS c, preempt AS p, load_kind AS l, capture_backend AS cb,
         breakdown_class AS bc, COUNT(*) AS n FROM events WHERE ${where} GROUP BY 1, 2, 3, 4, 5, 6`,
      params,
    )) {
      const add = (m: Map<string, number>, k: string): void => {
        m.set(k, (m.get(k) ?? 0) + r.n);
      };
      add(facets.drivers, r.d);
      add(facets.cards, r.c);
      add(facets.preempts, r.p);
      add(facets.loads, r.l);
      add(facets.captureBackends, r.cb);
      if (r.bc !== null) add(facets.breakdownClasses, r.bc);
    }
    const hours = kernels.reduce((s, k) => s + k.playbackHours, 0);
    return {
      signature: query.signature,
      function: head.function,
      module: head.module,
      incidents: head.n,
      machines: head.machines,
      perMachineHour: perHour(head.n, hours),
      firstSeenMs: head.first,
      lastSeenMs: head.last,
      kernels,
      appearsIn: seen[0]?.release ?? null,
      disappearsIn: after?.release ?? null,
      stacks: (await this.stacks(where, params, query.stackLimit ?? 20)).stacks,
      drivers: sortedCounts(facets.drivers),
      cards: sortedCounts(facets.cards),
      preempts: sortedCounts(facets.preempts),
      loads: sortedCounts(facets.loads),
      captureBackends: sortedCounts(facets.captureBackends),
      breakdownClasses: sortedCounts(facets.breakdownClasses),
    };
  }

  /** Distinct stacks of the events `where` selects, most incidents first (ties by frames). */
  private async stacks(where: string, params: SqlParams, limit: number): Promise<FlameStacks> {
    const rows = await this.all<{ frames: string; n: number; total: number }>(
      `WITH g AS (SELECT stack_id, COUNT(*) AS n FROM events WHERE ${where} GROUP BY stack_id)
       SELECT s.frames AS frames, g.n AS n, SUM(g.n) OVER () AS total
       FROM g JOIN stacks s ON s.id = g.stack_id
       ORDER BY g.n DESC, ${this.sql.binary('s.frames')} LIMIT ${Math.max(0, Math.floor(limit))}`,
      params,
    );
    const kept: StackCount[] = rows.map((r) => ({
      frames: JSON.parse(r.frames) as string[],
      count: r.n,
    }));
    const total = rows[0]?.total ?? 0;
    const keptCount = kept.reduce((s, r) => s + r.count, 0);
    return { stacks: kept, otherCount: total - keptCount, total };
  }

  async trend(query: TrendQuery): Promise<KernelTrend> {
    return this.memo(`trend:${JSON.stringify(query)}`, () => this.trendNow(query));
  }

  private async trendNow(query: TrendQuery): Promise<KernelTrend> {
    const f = filterSql(query.filter);
    const where = `${f.eventWhere} AND ${f.classWhere}`;
    const denominators = await this.denominators(query.filter, true);
    type R = { grp: string; n: number; machines: number; first: number; last: number };
    const fleetRows = await this.all<R>(
      `SELECT kernel_release AS grp, COUNT(*) AS n, COUNT(DISTINCT machine) AS machines,
         MIN(created_ms) AS first, MAX(created_ms) AS last FROM events WHERE ${where} GROUP BY 1`,
      f.params,
    );
    const fleet = this.kernelPoints(denominators, new Map(fleetRows.map((r) => [r.grp, r])));
    const top = (
      await this.all<{ signature: string }>(
        `SELECT signature FROM events WHERE ${where} AND signature IS NOT NULL
         GROUP BY signature ORDER BY COUNT(*) DESC, ${this.sql.binary('signature')}
         LIMIT ${Math.max(0, Math.floor(query.top ?? 8))}`,
        f.params,
      )
    ).map((r) => r.signature);
    const bySig = new Map<string, Map<string, R>>(top.map((s) => [s, new Map()]));
    if (top.length > 0) {
      const p: SqlParams = { ...f.params };
      top.forEach((s, i) => (p[`top${i}`] = s));
      for (const r of await this.all<R & { signature: string }>(
        `SELECT signature, kernel_release AS grp, COUNT(*) AS n, COUNT(DISTINCT machine) AS machines,
           MIN(created_ms) AS first, MAX(created_ms) AS last FROM events
         WHERE ${where} AND signature IN (${top.map((_, i) => `@top${i}`).join(', ')})
         GROUP BY 1, 2`,
        p,
      )) {
        bySig.get(r.signature)?.set(r.grp, r);
      }
    }
    return {
      releases: fleet.map((k) => k.release),
      fleet,
      series: top.map((signature) => ({
        signature,
        points: this.kernelPoints(denominators, bySig.get(signature)!),
      })),
    };
  }

  async flame(query: FlameQuery): Promise<FlameStacks> {
    return this.memo(`flame:${JSON.stringify(query)}`, () => this.flameNow(query));
  }

  private async flameNow(query: FlameQuery): Promise<FlameStacks> {
    const f = filterSql(query.filter);
    const sig = query.signature ?? null;
    const params = sig === null ? f.params : { ...f.params, sig };
    const where = `${f.eventWhere} AND ${f.classWhere}${sig === null ? '' : ' AND signature = @sig'}`;
    return this.stacks(where, params, query.limit ?? 2000);
  }

  async close(): Promise<void> {
    await this.sql.close();
  }
}
