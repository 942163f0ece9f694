// The FleetReader over the embedded SQLite fleet store (src/bundle/store.ts), opened
// read-only. Queries scan the events table with the filter's clauses (sqlite-filter-sql.ts);
// the fleet ranking without card, capture-backend or time filters reads the rollup tables
// the ingest keeps, so the default fleet page stays fast at a million bundles.
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { XrunhuntError } from '../errors.js';
import type { BundleOffenderClass } from '../bundle/schema.js';
import { BUNDLE_OFFENDER_CLASSES } from '../bundle/schema.js';
import { loadSqlite, openFleetStore, STORE_SCHEMA_VERSION } from '../bundle/store.js';
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
import { filterSql, rollupAnswers, type SqlParams } from './sqlite-filter-sql.js';

const HOUR_MS = 3_600_000;

const emptyClasses = (): Record<BundleOffenderClass, number> => ({
  kernel: 0,
  idle: 0,
  user: 0,
  none: 0,
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

/** FleetReader over one SQLite store file. Open with openSqliteFleetReader. */
export class SqliteFleetReader implements FleetReader {
  private readonly db: Database.Database;
  private readonly cache = new Map<string, unknown>();
  private cachedVersion = -1;

  constructor(db: Database.Database) {
    this.db = db;
  }

  /**
   * The answer to a query, computed once per store state: a store changes only when an
   * ingest commits (PRAGMA data_version says so), so a page asked again (a reload, the
   * filter controls' values on every page) costs nothing until then.
   */
  private memo<T>(key: string, compute: () => T): T {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (version !== this.cachedVersion) {
      this.cache.clear();
      this.cachedVersion = version;
    }
    if (this.cache.has(key)) {
      const hit = this.cache.get(key) as T;
      this.cache.delete(key);
      this.cache.set(key, hit);
      return structuredClone(hit);
    }
    const value = compute();
    this.cache.set(key, value);
    if (this.cache.size > CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    return structuredClone(value);
  }

  private all<T>(sql: string, params: SqlParams): T[] {
    return this.db.prepare(sql).all(params) as T[];
  }

  private frames(stackId: number): string[] {
    const json = this.db.prepare('SELECT frames FROM stacks WHERE id = ?').pluck().get(stackId) as
      string | undefined;
    return json === undefined ? [] : (JSON.parse(json) as string[]);
  }

  /** Bundles, machines and playback of the filtered bundles, per kernel release or in all. */
  private denominators(filter: FleetFilter, perKernel: boolean): DenominatorRow[] {
    const f = filterSql(filter);
    if (!perKernel && f.bundleWhere === '1') {
      // The whole store: every stored bundle's machine is in `machines`, so no DISTINCT.
      return this.all<DenominatorRow>(
        `SELECT '' AS grp, COUNT(*) AS bundles, (SELECT COUNT(*) FROM machines) AS machines,
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

  private totals(filter: FleetFilter): FleetTotals {
    const d = this.denominators(filter, false)[0];
    const f = filterSql(filter);
    const table = rollupAnswers(filter) ? 'rollup' : 'events';
    const count = table === 'rollup' ? 'SUM(n)' : 'COUNT(*)';
    const classes = emptyClasses();
    for (const r of this.all<{ class: string; n: number }>(
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

  private filterValuesNow(): FilterValues {
    const counts = (sql: string): ValueCount[] =>
      this.all<ValueCount>(`${sql} ORDER BY count DESC, value`, {});
    // One scan of the bundles for the three bundle-level facets and the time range.
    const kernels = new Map<string, number>();
    const preempts = new Map<string, number>();
    const backends = new Map<string, number>();
    let firstMs: number | null = null;
    let lastMs: number | null = null;
    for (const r of this.all<{
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
      drivers: counts('SELECT driver AS value, COUNT(*) AS count FROM bundle_drivers GROUP BY 1'),
      cards: counts('SELECT card AS value, COUNT(*) AS count FROM bundle_cards GROUP BY 1'),
      captureBackends: sortedCounts(backends),
      offenderClasses: counts('SELECT class AS value, SUM(n) AS count FROM rollup GROUP BY 1'),
      timeRange: firstMs === null || lastMs === null ? null : { firstMs, lastMs },
    };
  }

  async ranking(query: RankingQuery): Promise<FleetRankingResult> {
    return this.memo(`ranking:${JSON.stringify(query)}`, () => this.rankingNow(query));
  }

  private rankingNow(query: RankingQuery): FleetRankingResult {
    const { filter } = query;
    const limit = query.limit ?? 50;
    const totals = this.totals(filter);
    const f = filterSql(filter);
    const useRollup = rollupAnswers(filter);
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
      ? this.all<Row>(
          `SELECT class, NULLIF(signature, '') AS signature, MIN(function) AS function,
             MIN(module) AS module, SUM(n) AS n, MIN(first_ms) AS first, MAX(last_ms) AS last,
             NULL AS machines
           FROM rollup WHERE ${f.eventWhere} AND ${f.classWhere} GROUP BY class, signature`,
          f.params,
        )
      : this.all<Row>(
          `SELECT class, signature, MIN(function) AS function, MIN(module) AS module,
             COUNT(*) AS n, MIN(created_ms) AS first, MAX(created_ms) AS last,
             COUNT(DISTINCT machine) AS machines
           FROM events WHERE ${f.eventWhere} AND ${f.classWhere} GROUP BY class, signature`,
          f.params,
        );
    if (useRollup) this.fillRollupMachines(rows, filter);
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
  private fillRollupMachines(
    rows: { class: string; signature: string | null; machines: number | null }[],
    filter: FleetFilter,
  ): void {
    const f = filterSql(filter);
    const unfiltered = f.eventWhere === '1';
    const sigMachines = new Map(
      this.all<{ signature: string; m: number }>(
        unfiltered
          ? 'SELECT signature, COUNT(*) AS m FROM rollup_sig_machines GROUP BY signature'
          : `SELECT signature, COUNT(DISTINCT machine) AS m FROM rollup_machines
             WHERE ${f.eventWhere} GROUP BY signature`,
        f.params,
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
      this.all<{ class: string; signature: string | null; m: number }>(
        `SELECT class, signature, COUNT(DISTINCT machine) AS m FROM events
         WHERE ${f.eventWhere} AND (class <> 'kernel' OR signature IS NULL)
         GROUP BY class, signature`,
        f.params,
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

  private signatureNow(query: SignatureQuery): SignatureDetail | null {
    const f = filterSql(query.filter);
    const params = { ...f.params, sig: query.signature };
    const where = `${f.eventWhere} AND ${f.classWhere} AND signature = @sig`;
    const head = this.db
      .prepare(
        `SELECT COUNT(*) AS n, COUNT(DISTINCT machine) AS machines, MIN(created_ms) AS first,
           MAX(created_ms) AS last, MIN(function) AS function, MIN(module) AS module
         FROM events WHERE ${where}`,
      )
      .get(params) as {
      n: number;
      machines: number;
      first: number | null;
      last: number | null;
      function: string | null;
      module: string | null;
    };
    if (head.n === 0 || head.first === null || head.last === null) return null;
    const perKernel = new Map(
      this.all<{ grp: string; n: number; machines: number; first: number; last: number }>(
        `SELECT kernel_release AS grp, COUNT(*) AS n, COUNT(DISTINCT machine) AS machines,
           MIN(created_ms) AS first, MAX(created_ms) AS last
         FROM events WHERE ${where} GROUP BY 1`,
        params,
      ).map((r) => [r.grp, r]),
    );
    const kernels = this.kernelPoints(this.denominators(query.filter, true), perKernel);
    const seen = kernels.filter((k) => k.incidents > 0);
    const lastIdx = kernels.findIndex((k) => k === seen[seen.length - 1]);
    const after = kernels.slice(lastIdx + 1).find((k) => k.bundles > 0);
    const facets = {
      drivers: new Map<string, number>(),
      cards: new Map<string, number>(),
      preempts: new Map<string, number>(),
      loads: new Map<string, number>(),
      captureBackends: new Map<string, number>(),
    };
    for (const r of this.all<{ d: string; c: string; p: string; l: string; cb: string; n: number }>(
      `SELECT driver AS d, card AS c, preempt AS p, load_kind AS l, capture_backend AS cb,
         COUNT(*) AS n FROM events WHERE ${where} GROUP BY 1, 2, 3, 4, 5`,
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
      stacks: this.stacks(where, params, query.stackLimit ?? 20).stacks,
      drivers: sortedCounts(facets.drivers),
      cards: sortedCounts(facets.cards),
      preempts: sortedCounts(facets.preempts),
      loads: sortedCounts(facets.loads),
      captureBackends: sortedCounts(facets.captureBackends),
    };
  }

  /** Distinct stacks of the events `where` selects, most incidents first. */
  private stacks(where: string, params: SqlParams, limit: number): FlameStacks {
    const rows = this.all<{ stack: number; n: number }>(
      `SELECT stack_id AS stack, COUNT(*) AS n FROM events WHERE ${where}
       GROUP BY stack_id ORDER BY n DESC, stack_id`,
      params,
    );
    const kept: StackCount[] = rows
      .slice(0, limit)
      .map((r) => ({ frames: this.frames(r.stack), count: r.n }));
    const total = rows.reduce((s, r) => s + r.n, 0);
    const keptCount = kept.reduce((s, r) => s + r.count, 0);
    return { stacks: kept, otherCount: total - keptCount, total };
  }

  async trend(query: TrendQuery): Promise<KernelTrend> {
    return this.memo(`trend:${JSON.stringify(query)}`, () => this.trendNow(query));
  }

  private trendNow(query: TrendQuery): KernelTrend {
    const f = filterSql(query.filter);
    const where = `${f.eventWhere} AND ${f.classWhere}`;
    const denominators = this.denominators(query.filter, true);
    type R = { grp: string; n: number; machines: number; first: number; last: number };
    const fleetRows = this.all<R>(
      `SELECT kernel_release AS grp, COUNT(*) AS n, COUNT(DISTINCT machine) AS machines,
         MIN(created_ms) AS first, MAX(created_ms) AS last FROM events WHERE ${where} GROUP BY 1`,
      f.params,
    );
    const fleet = this.kernelPoints(denominators, new Map(fleetRows.map((r) => [r.grp, r])));
    const top = this.all<{ signature: string }>(
      `SELECT signature FROM events WHERE ${where} AND signature IS NOT NULL
       GROUP BY signature ORDER BY COUNT(*) DESC, signature LIMIT ${Math.max(0, Math.floor(query.top ?? 8))}`,
      f.params,
    ).map((r) => r.signature);
    const bySig = new Map<string, Map<string, R>>(top.map((s) => [s, new Map()]));
    if (top.length > 0) {
      const p: SqlParams = { ...f.params };
      top.forEach((s, i) => (p[`top${i}`] = s));
      for (const r of this.all<R & { signature: string }>(
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

  private flameNow(query: FlameQuery): FlameStacks {
    const f = filterSql(query.filter);
    const sig = query.signature ?? null;
    const params = sig === null ? f.params : { ...f.params, sig };
    const where = `${f.eventWhere} AND ${f.classWhere}${sig === null ? '' : ' AND signature = @sig'}`;
    return this.stacks(where, params, query.limit ?? 2000);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/**
 * Opens a fleet store for the web view: refuses a missing file (the web view never creates
 * a store), upgrades an older store schema once (the only write), then reads only.
 */
export function openSqliteFleetReader(path: string): SqliteFleetReader {
  if (!existsSync(path)) {
    throw new XrunhuntError('input', `no fleet store at ${path}`, {
      hint: 'give the --db file that `xrunhunt aggregate` or `xrunhunt serve` writes',
    });
  }
  const Sqlite = loadSqlite();
  let db: Database.Database;
  try {
    db = new Sqlite(path, { readonly: true, fileMustExist: true });
    const v = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as
      string | undefined;
    if (v === undefined || Number(v) < STORE_SCHEMA_VERSION) {
      db.close();
      openFleetStore(path).close();
      db = new Sqlite(path, { readonly: true, fileMustExist: true });
    }
  } catch (err) {
    if (err instanceof XrunhuntError) throw err;
    const msg = (err as Error).message;
    throw new XrunhuntError(
      'input',
      /no such table: meta/.test(msg)
        ? `${path} is an SQLite database but not an xrunhunt fleet store`
        : `cannot read the fleet store ${path}: ${msg}`,
      {
        hint: 'give the --db file that `xrunhunt aggregate` or `xrunhunt serve` writes',
        cause: err,
      },
    );
  }
  return new SqliteFleetReader(db);
}
