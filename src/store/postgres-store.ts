// The fleet store on a shared PostgreSQL server (node-postgres, a Pool), for many receivers
// and ingesters at once. One batch is one transaction. Exactly-once by content hash holds
// across any number of writers because the bundle row is claimed with
// INSERT … ON CONFLICT (hash) DO NOTHING RETURNING (the unique index decides, never a prior
// read); only the winners' events and rollup increments are written, in the same
// transaction, so a rollup never counts a bundle that lost or rolled back. Rows are written
// in key order so two writers lock them in the same order (no deadlocks; one is retried if
// PostgreSQL reports one anyway). Stacks and machine ids are content-keyed dictionaries,
// upserted in short transactions of their own: an entry left by a rolled-back batch is
// harmless and cached ids always exist.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { XrunhuntError } from '../errors.js';
import { bundleToRows, eventColumnValues, type EventRow } from '../bundle/fleet-rows.js';
import { knownFileKey } from '../bundle/ingest.js';
import type {
  FleetRanking,
  IngestItem,
  IngestResult,
  RankQuery,
  ClassRankQuery,
  SignFrames,
  ValueCount,
} from '../bundle/store.js';
import type { FleetBackend } from './fleet-backend.js';
import { applyMigrations } from './postgres-migrate.js';
import { buildRanking, type FacetRow, type GroupRow, type MachineRow } from './ranking-build.js';
import { rankingSql } from './ranking-sql.js';
import { classRankingSql } from './class-ranking-sql.js';
import {
  buildClassRanking,
  type ClassMachinesRow,
  type ClassRanking,
  type CulpritRow,
  type TotalsRow,
} from './class-ranking-build.js';
import { isRetryable, isTransientConnectionError, describePgError } from './postgres-errors.js';
import { withArrayLiterals } from './pg-array-literal.js';

/** Largest dictionary cache (stacks, machines) kept in memory. */
const CACHE_MAX = 50_000;
/** How long a batch keeps retrying while the server is unreachable (restart, failover), ms. */
export const RECONNECT_WINDOW_MS = 60_000;
/** PostgreSQL's byte-compare collation: text MIN/ORDER BY as SQLite does them. */
const C = ' COLLATE "C"';

// bigint (COUNT, SUM of integers, ms) and numeric as JavaScript numbers: every value the store
// keeps is far below 2^53.
const numberTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 || oid === 1700
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface PostgresStoreOptions {
  /** Connections in the pool (default 4). */
  poolSize?: number;
  /** Called when a transient error is retried (for logs). */
  onRetry?: (err: unknown, attempt: number) => void;
  reconnectWindowMs?: number;
}

/** The PostgreSQL-backed fleet store. Open with openPostgresStore; close when done. */
export class PostgresFleetStore implements FleetBackend {
  readonly kind = 'postgres' as const;
  readonly label: string;
  private readonly pool: pg.Pool;
  private readonly stackIds = new Map<string, number>();
  private readonly machineIds = new Map<string, number>();
  private readonly options: PostgresStoreOptions;

  constructor(pool: pg.Pool, label: string, options: PostgresStoreOptions = {}) {
    this.pool = pool;
    this.label = label;
    this.options = options;
  }

  /** Runs fn, retrying deadlocks/serialization failures and (for a while) lost connections. */
  private async retrying<T>(fn: () => Promise<T>): Promise<T> {
    const window = this.options.reconnectWindowMs ?? RECONNECT_WINDOW_MS;
    const start = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const again =
          (isRetryable(err) && attempt < 8) ||
          (isTransientConnectionError(err) && Date.now() - start < window);
        if (!again) throw wrap(err, this.label);
        this.options.onRetry?.(err, attempt);
        await sleep(Math.min(2000, 50 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
      }
    }
  }

  private async transaction<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.retrying(async () => {
      const c = await this.pool.connect();
      let broken = false;
      try {
        await c.query('BEGIN');
        const out = await fn(c);
        await c.query('COMMIT');
        return out;
      } catch (err) {
        try {
          await c.query('ROLLBACK');
        } catch {
          broken = true; // the connection itself is gone: do not return it to the pool
        }
        throw err;
      } finally {
        c.release(broken);
      }
    });
  }

  async isKnownFile(path: string, size: number, mtimeMs: number): Promise<boolean> {
    const r = await this.retrying(() =>
      this.pool.query({
        name: 'xrh_known_file',
        text: 'SELECT 1 FROM files WHERE path = $1 AND size = $2 AND mtime_ms = $3',
        values: [path, size, mtimeMs],
      }),
    );
    return r.rowCount !== null && r.rowCount > 0;
  }

  /** Which of these files are already ingested (one query for a whole batch of files). */
  async knownFiles(files: { path: string; size: number; mtimeMs: number }[]): Promise<Set<string>> {
    if (files.length === 0) return new Set();
    const r = await this.retrying(() =>
      this.pool.query<{ path: string; size: number; mtime_ms: number }>({
        name: 'xrh_known_files',
        text: 'SELECT path, size, mtime_ms FROM files WHERE path = ANY($1::text[])',
        values: withArrayLiterals([files.map((f) => f.path)]),
      }),
    );
    return new Set(r.rows.map((x) => knownFileKey(x.path, x.size, x.mtime_ms)));
  }

  async hasBundle(hash: string): Promise<boolean> {
    const r = await this.retrying(() =>
      this.pool.query({
        name: 'xrh_has_bundle',
        text: 'SELECT 1 FROM bundles WHERE hash = $1',
        values: [hash],
      }),
    );
    return r.rowCount !== null && r.rowCount > 0;
  }

  /** Ids of content-keyed dictionary entries (stacks, machines), inserted when missing. */
  private async dictionaryIds(
    cache: Map<string, number>,
    keys: string[],
    table: 'stacks' | 'machines',
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const missing: string[] = [];
    for (const k of keys) {
      const id = cache.get(k);
      if (id === undefined) missing.push(k);
      else out.set(k, id);
    }
    if (missing.length === 0) return out;
    if (cache.size + missing.length > CACHE_MAX) cache.clear();
    const rows =
      table === 'stacks'
        ? await this.retrying(async () => {
            const digests = missing.map(sha256);
            // Inserted in first-appearance order: one writer numbers stacks as SQLite does.
            await this.pool.query({
              name: 'xrh_insert_stacks',
              text: `INSERT INTO stacks (digest, frames) SELECT d, f FROM unnest($1::text[], $2::text[]) AS t(d, f)
                     ON CONFLICT (digest) DO NOTHING`,
              values: withArrayLiterals([digests, missing]),
            });
            const r = await this.pool.query<{ id: number; digest: string }>({
              name: 'xrh_stack_ids',
              text: 'SELECT id, digest FROM stacks WHERE digest = ANY($1::text[])',
              values: withArrayLiterals([digests]),
            });
            const byDigest = new Map(r.rows.map((x) => [x.digest, x.id]));
            return missing.map((k, i) => [k, byDigest.get(digests[i]!)] as const);
          })
        : await this.retrying(async () => {
            await this.pool.query({
              name: 'xrh_insert_machines',
              text: `INSERT INTO machines (machine_id) SELECT m FROM unnest($1::text[]) AS t(m)
                     ON CONFLICT (machine_id) DO NOTHING`,
              values: withArrayLiterals([missing]),
            });
            const r = await this.pool.query<{ id: number; machine_id: string }>({
              name: 'xrh_machine_ids',
              text: 'SELECT id, machine_id FROM machines WHERE machine_id = ANY($1::text[])',
              values: withArrayLiterals([missing]),
            });
            const byKey = new Map(r.rows.map((x) => [x.machine_id, x.id]));
            return missing.map((k) => [k, byKey.get(k)] as const);
          });
    for (const [k, id] of rows) {
      if (id === undefined) throw new Error(`${table}: no id for a just-inserted entry`);
      cache.set(k, id);
      out.set(k, id);
    }
    return out;
  }

  /**
   * Stores a batch in ONE transaction. Bundles already present (same content hash, from any
   * writer, committed or committing) are counted as duplicates and add nothing.
   */
  async ingest(items: IngestItem[], nowMs: number): Promise<IngestResult> {
    if (items.length === 0) return { added: 0, duplicates: 0 };
    const rowsOf = items.map((item) => ({ item, rows: bundleToRows(item.bundle, item.hash) }));
    // First of each hash in the batch, claimed in hash order (the lock order of every writer).
    const firstByHash = new Map<string, (typeof rowsOf)[number]>();
    for (const r of rowsOf) if (!firstByHash.has(r.item.hash)) firstByHash.set(r.item.hash, r);
    const claims = [...firstByHash.values()].sort((a, b) =>
      a.item.hash < b.item.hash ? -1 : a.item.hash > b.item.hash ? 1 : 0,
    );
    const filesByPath = new Map<
      string,
      { path: string; size: number; mtimeMs: number; hash: string }
    >();
    for (const { item } of rowsOf)
      if (item.file) filesByPath.set(item.file.path, { ...item.file, hash: item.hash });
    const files = [...filesByPath.values()].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    );

    // Dictionary entries first, outside the batch's transaction (content-keyed, committed at
    // once): a batch never holds one pooled connection while waiting for another.
    const frames: string[] = [];
    const seenFrames = new Set<string>();
    for (const x of firstByHash.values())
      for (const e of x.rows.events)
        if (!seenFrames.has(e.framesJson)) {
          seenFrames.add(e.framesJson);
          frames.push(e.framesJson);
        }
    const stackIds = await this.dictionaryIds(this.stackIds, frames, 'stacks');
    const machineIds = await this.dictionaryIds(
      this.machineIds,
      [...new Set([...firstByHash.values()].map((x) => x.rows.bundle.machineId))],
      'machines',
    );
    const added = await this.transaction(async (c) => {
      const col = <K extends keyof (typeof claims)[number]['rows']['bundle']>(k: K) =>
        claims.map((x) => x.rows.bundle[k]);
      const won = await c.query<{ id: number; hash: string }>({
        name: 'xrh_claim_bundles',
        text: `INSERT INTO bundles (hash, machine_id, kind, created_at, created_ms, ingested_ms,
                 kernel_release, preempt, arch, drivers, playback_ms, duration_ms, xruns,
                 kernel_events, rules_version, tool_version, source, capture_backend)
               SELECT h, m, k, ca, cm, $6, kr, pr, ar, dr, pb, du, xr, ke, rv, tv, so, cb
               FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
                 $7::text[], $8::text[], $9::text[], $10::text[], $11::float8[], $12::float8[],
                 $13::int[], $14::int[], $15::text[], $16::text[], $17::text[], $18::text[])
                 AS t(h, m, k, ca, cm, kr, pr, ar, dr, pb, du, xr, ke, rv, tv, so, cb)
               ON CONFLICT (hash) DO NOTHING RETURNING id, hash`,
        values: withArrayLiterals([
          col('hash'),
          col('machineId'),
          col('kind'),
          col('createdAt'),
          col('createdMs'),
          nowMs,
          col('kernelRelease'),
          col('preempt'),
          col('arch'),
          col('drivers'),
          col('playbackMs'),
          col('durationMs'),
          col('xruns'),
          col('kernelEvents'),
          col('rulesVersion'),
          col('toolVersion'),
          claims.map((x) => x.item.source),
          col('captureBackend'),
        ]),
      });
      if (files.length > 0) {
        await c.query({
          name: 'xrh_upsert_files',
          text: `INSERT INTO files (path, size, mtime_ms, hash)
                 SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[], $4::text[])
                 ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
                   hash = excluded.hash`,
          values: withArrayLiterals([
            files.map((f) => f.path),
            files.map((f) => f.size),
            files.map((f) => f.mtimeMs),
            files.map((f) => f.hash),
          ]),
        });
      }
      if (won.rows.length === 0) return 0;
      const idOf = new Map(won.rows.map((r) => [r.hash, r.id]));
      // Winners in the batch's own order (stack and machine ids are numbered in it).
      const winners = [...firstByHash.values()].filter((x) => idOf.has(x.item.hash));
      await this.writeWinnerRows(c, winners, idOf, stackIds, machineIds);
      return winners.length;
    });
    return { added, duplicates: items.length - added };
  }

  /** Drivers, phases, events and rollup increments of the bundles this batch claimed. */
  private async writeWinnerRows(
    c: pg.PoolClient,
    winners: {
      item: IngestItem;
      rows: { bundle: ReturnType<typeof bundleToRows>['bundle']; events: EventRow[] };
    }[],
    idOf: Map<string, number>,
    stackIds: Map<string, number>,
    machineIds: Map<string, number>,
  ): Promise<void> {
    const drv: [number[], string[]] = [[], []];
    const cards: [number[], string[]] = [[], []];
    const ph: [number[], string[], number[]] = [[], [], []];
    const ev = Array.from({ length: 19 }, () => [] as unknown[]);
    interface Roll {
      key: string[];
      n: number;
      first: number;
      last: number;
      stack: number;
      fn: string | null;
      mod: string | null;
    }
    const rollups = new Map<string, Roll>();
    const rollMachines = new Map<string, [string, string, string, string, string, number]>();
    const sigMachines = new Map<string, [string, number]>();
    for (const { item, rows } of winners) {
      const id = idOf.get(item.hash)!;
      const b = rows.bundle;
      const machine = machineIds.get(b.machineId)!;
      for (const d of new Set(item.bundle.host.cards.map((x) => x.driver))) {
        drv[0].push(id);
        drv[1].push(d);
      }
      for (const card of b.cards) {
        cards[0].push(id);
        cards[1].push(card);
      }
      for (const p of item.bundle.phases) {
        ph[0].push(id);
        ph[1].push(p.kind);
        ph[2].push(p.endMs - p.startMs);
      }
      for (const e of rows.events) {
        const stack = stackIds.get(e.framesJson)!;
        const vals = eventColumnValues(id, e, stack, machine, b);
        for (let i = 0; i < 19; i++) ev[i]!.push(vals[i]);
        const sig = e.signature ?? '';
        const key = [e.class, sig, b.kernelRelease, e.driver, b.preempt, e.loadKind];
        const k = key.join('\u0000');
        const r = rollups.get(k);
        if (r) {
          r.n++;
          if (b.createdMs < r.first) r.first = b.createdMs;
          if (b.createdMs > r.last) r.last = b.createdMs;
          if (stack > r.stack) r.stack = stack;
        } else {
          rollups.set(k, {
            key,
            n: 1,
            first: b.createdMs,
            last: b.createdMs,
            stack,
            fn: e.function,
            mod: e.module,
          });
        }
        if (e.class === 'kernel' && e.signature !== null) {
          const mk = [sig, b.kernelRelease, e.driver, b.preempt, e.loadKind, machine] as const;
          rollMachines.set(mk.join('\u0000'), [...mk]);
          sigMachines.set(`${sig}\u0000${machine}`, [sig, machine]);
        }
      }
    }
    if (drv[0].length)
      await c.query({
        name: 'xrh_insert_drivers',
        text: `INSERT INTO bundle_drivers (bundle_id, driver) SELECT * FROM unnest($1::bigint[], $2::text[])
               ON CONFLICT DO NOTHING`,
        values: withArrayLiterals(drv),
      });
    if (cards[0].length)
      await c.query({
        name: 'xrh_insert_cards',
        text: `INSERT INTO bundle_cards (bundle_id, card) SELECT * FROM unnest($1::bigint[], $2::text[])
               ON CONFLICT DO NOTHING`,
        values: withArrayLiterals(cards),
      });
    if (ph[0].length)
      await c.query({
        name: 'xrh_insert_phases',
        text: 'INSERT INTO phases (bundle_id, kind, ms) SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[])',
        values: withArrayLiterals(ph),
      });
    if (ev[0]!.length)
      await c.query({
        name: 'xrh_insert_events',
        text: `INSERT INTO events (bundle_id, idx, kind, class, function, module, signature, phase,
                 load_kind, driver, stack_id, machine, kernel_release, preempt, created_ms, card,
                 capture_backend, breakdown_class, top_blocker)
               SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[],
                 $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[],
                 $12::bigint[], $13::text[], $14::text[], $15::bigint[], $16::text[], $17::text[],
                 $18::text[], $19::text[])`,
        values: withArrayLiterals(ev),
      });
    // Rollups last and in key order: their row locks are the ones writers share, held only
    // from here to COMMIT.
    const byKey = <T>(m: Map<string, T>): T[] =>
      [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((x) => x[1]);
    const rm = byKey(rollMachines);
    if (rm.length)
      await c.query({
        name: 'xrh_insert_rollup_machines',
        text: `INSERT INTO rollup_machines (signature, kernel_release, driver, preempt, load_kind, machine)
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
               ON CONFLICT DO NOTHING`,
        values: withArrayLiterals([0, 1, 2, 3, 4, 5].map((i) => rm.map((r) => r[i]))),
      });
    const sm = byKey(sigMachines);
    if (sm.length)
      await c.query({
        name: 'xrh_insert_sig_machines',
        text: `INSERT INTO rollup_sig_machines (signature, machine)
               SELECT * FROM unnest($1::text[], $2::bigint[]) ON CONFLICT DO NOTHING`,
        values: withArrayLiterals([sm.map((r) => r[0]), sm.map((r) => r[1])]),
      });
    const ro = byKey(rollups);
    if (ro.length)
      await c.query({
        name: 'xrh_upsert_rollup',
        text: `INSERT INTO rollup AS r (class, signature, kernel_release, driver, preempt, load_kind, n,
                 first_ms, last_ms, stack_id, function, module)
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                 $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::text[], $12::text[])
               ON CONFLICT (class, signature, kernel_release, driver, preempt, load_kind) DO UPDATE
                 SET n = r.n + excluded.n, first_ms = LEAST(r.first_ms, excluded.first_ms),
                   last_ms = GREATEST(r.last_ms, excluded.last_ms),
                   stack_id = GREATEST(r.stack_id, excluded.stack_id)`,
        values: withArrayLiterals([
          ...[0, 1, 2, 3, 4, 5].map((i) => ro.map((r) => r.key[i])),
          ro.map((r) => r.n),
          ro.map((r) => r.first),
          ro.map((r) => r.last),
          ro.map((r) => r.stack),
          ro.map((r) => r.fn),
          ro.map((r) => r.mod),
        ]),
      });
  }

  async count(): Promise<number> {
    const r = await this.retrying(() =>
      this.pool.query<{ n: number }>('SELECT COUNT(*) AS n FROM bundles'),
    );
    return r.rows[0]!.n;
  }

  async rulesVersion(): Promise<string | null> {
    const r = await this.retrying(() =>
      this.pool.query<{ value: string }>("SELECT value FROM meta WHERE key = 'rules_version'"),
    );
    return r.rows[0]?.value ?? null;
  }

  /** The fleet ranking, read from one snapshot (concurrent ingests are all in or all out). */
  async rank(query: RankQuery = {}): Promise<FleetRanking> {
    const by = query.by ?? null;
    const since = query.sinceMs ?? null;
    const sql = rankingSql(by, since === null ? null : '$1', C);
    const params = since === null ? [] : [since];
    return this.retrying(async () => {
      const c = await this.pool.connect();
      try {
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const groups = (await c.query<GroupRow>(sql.groups, params)).rows;
        const facets = (
          await c.query<FacetRow>({ text: sql.facets, values: params, rowMode: 'array' })
        ).rows;
        const machines = (
          await c.query<MachineRow>({ text: sql.machines, values: params, rowMode: 'array' })
        ).rows;
        const rulesVersions = (await c.query<ValueCount>(sql.rulesVersions, params)).rows;
        const rv = await c.query<{ value: string }>(
          "SELECT value FROM meta WHERE key = 'rules_version'",
        );
        const pending = buildRanking({
          by,
          sinceMs: since,
          top: query.top ?? Infinity,
          groups,
          facets,
          machines,
          rulesVersion: rv.rows[0]?.value ?? null,
          rulesVersions,
        });
        const frames = await c.query<{ id: number; frames: string }>(
          'SELECT id, frames FROM stacks WHERE id = ANY($1::bigint[])',
          [pending.stackIds],
        );
        await c.query('COMMIT');
        return pending.finish(new Map(frames.rows.map((r) => [r.id, r.frames])));
      } finally {
        c.release();
      }
    });
  }

  /** The fleet ranking per class, read from one snapshot like rank(). */
  async rankClasses(query: ClassRankQuery = {}): Promise<ClassRanking> {
    const since = query.sinceMs ?? null;
    const only = query.only ?? null;
    const params: (number | string)[] = [];
    if (since !== null) params.push(since);
    const sincePh = since === null ? null : '$1';
    const totalsParams = [...params];
    if (only !== null) params.push(only);
    const clsPh = only === null ? null : `$${params.length}`;
    const sql = classRankingSql({ since: sincePh, cls: clsPh });
    return this.retrying(async () => {
      const c = await this.pool.connect();
      try {
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const culprits = (await c.query<CulpritRow>(sql.culprits, params)).rows;
        const classes = (await c.query<ClassMachinesRow>(sql.classes, params)).rows;
        const totals = (await c.query<TotalsRow>(sql.totals, totalsParams)).rows[0];
        await c.query('COMMIT');
        return buildClassRanking({
          sinceMs: since,
          only,
          top: query.top ?? Infinity,
          culprits,
          classes,
          totals,
        });
      } finally {
        c.release();
      }
    });
  }

  /**
   * Recomputes every stored event's offender from its frames with the current rules, in one
   * transaction that holds off concurrent ingests (the rollups are rebuilt from the events).
   */
  async resign(
    sign: SignFrames,
    rulesVersion: string,
  ): Promise<{ stacks: number; events: number }> {
    return this.transaction(async (c) => {
      await c.query(
        'LOCK TABLE bundles, events, rollup, rollup_machines, rollup_sig_machines IN SHARE ROW EXCLUSIVE MODE',
      );
      const stacks = await c.query<{ id: number; frames: string }>('SELECT id, frames FROM stacks');
      const cols: [number[], string[], (string | null)[], (string | null)[], (string | null)[]] = [
        [],
        [],
        [],
        [],
        [],
      ];
      for (const s of stacks.rows) {
        const o = sign(JSON.parse(s.frames) as string[]);
        cols[0].push(s.id);
        cols[1].push(o.class);
        cols[2].push(o.function);
        cols[3].push(o.module);
        cols[4].push(o.signature);
      }
      const changed = await c.query<{ events: number; stacks: number }>(
        `WITH s AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
                      AS t(id, class, function, module, signature)),
              u AS (UPDATE events e SET class = s.class, function = s.function, module = s.module,
                      signature = s.signature FROM s
                    WHERE e.stack_id = s.id AND (e.class IS DISTINCT FROM s.class
                      OR e.function IS DISTINCT FROM s.function OR e.module IS DISTINCT FROM s.module
                      OR e.signature IS DISTINCT FROM s.signature)
                    RETURNING e.stack_id)
         SELECT COUNT(*) AS events, COUNT(DISTINCT stack_id) AS stacks FROM u`,
        cols,
      );
      await c.query('UPDATE bundles SET rules_version = $1', [rulesVersion]);
      await c.query(`
        DELETE FROM rollup;
        INSERT INTO rollup SELECT class, COALESCE(signature, ''), kernel_release, driver, preempt,
          load_kind, COUNT(*), MIN(created_ms), MAX(created_ms), MAX(stack_id), MIN(function${C}), MIN(module${C})
          FROM events GROUP BY 1, 2, 3, 4, 5, 6;
        DELETE FROM rollup_machines;
        INSERT INTO rollup_machines SELECT DISTINCT signature, kernel_release, driver, preempt,
          load_kind, machine FROM events WHERE class = 'kernel' AND signature IS NOT NULL;
        DELETE FROM rollup_sig_machines;
        INSERT INTO rollup_sig_machines SELECT DISTINCT signature, machine FROM events
          WHERE class = 'kernel' AND signature IS NOT NULL;`);
      await c.query(
        `INSERT INTO meta (key, value) VALUES ('rules_version', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [rulesVersion],
      );
      return { stacks: changed.rows[0]!.stacks, events: changed.rows[0]!.events };
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function wrap(err: unknown, label: string): unknown {
  if (err instanceof XrunhuntError) return err;
  if (isTransientConnectionError(err)) {
    return new XrunhuntError(
      'resource',
      `the fleet store ${label} is unreachable: ${describePgError(err)}`,
      {
        hint: 'check that PostgreSQL is running and reachable, then run again',
        cause: err,
      },
    );
  }
  return err;
}

/**
 * A pool on the fleet store with pending migrations applied (under an advisory lock:
 * concurrent starters wait for each other); `check` runs first (the web view refuses a
 * database holding no store). Exists so every opener reports a failed connection alike: a
 * user error saying what to check, never the URL's password.
 */
export async function connectFleetPool(
  url: string,
  label: string,
  o: { poolSize: number; applicationName: string; check?: (pool: pg.Pool) => Promise<void> },
): Promise<pg.Pool> {
  const pool = new pg.Pool({
    connectionString: url,
    max: o.poolSize,
    types: numberTypes,
    connectionTimeoutMillis: 10_000,
    application_name: o.applicationName,
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the next query takes a fresh one.
  pool.on('error', () => undefined);
  try {
    await o.check?.(pool);
    await applyMigrations(pool);
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof XrunhuntError) throw err;
    throw new XrunhuntError(
      'resource',
      `cannot open the fleet store ${label}: ${describePgError(err)}`,
      {
        hint: 'check the URL (host, port, database, user; the password in the URL, ~/.pgpass or $PGPASSWORD) and that PostgreSQL is running',
        cause: err,
      },
    );
  }
  return pool;
}

/** Connects to the PostgreSQL fleet store (connectFleetPool) for ingest and ranking. */
export async function openPostgresStore(
  url: string,
  label: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresFleetStore> {
  const pool = await connectFleetPool(url, label, {
    poolSize: options.poolSize ?? 4,
    applicationName: 'xrunhunt',
  });
  return new PostgresFleetStore(pool, label, options);
}
