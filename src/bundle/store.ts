// The fleet store: bundles from many machines in one SQLite file (better-sqlite3, WAL), so
// re-aggregation is incremental and a crash mid-ingest loses nothing and counts nothing
// twice: each batch is one transaction, bundles are keyed by content hash, and the file
// bookkeeping that lets a rerun skip unchanged files commits in the same transaction.
// The schema is deliberately plain SQL (no JSON columns in queries) so it maps 1:1 onto
// PostgreSQL for a shared server (docs/aggregate.md).
// better-sqlite3 is an optional dependency (a native module that may need a compiler): it is
// loaded on the first openFleetStore(), so analyze, play and doctor run without it.
import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { errorMessage, XrunhuntError } from '../errors.js';
import { bundleToRows, eventColumnValues } from './fleet-rows.js';
import {
  buildRanking,
  type FacetRow,
  type GroupRow,
  type MachineRow,
} from '../store/ranking-build.js';
import { rankingSql } from '../store/ranking-sql.js';
import { classRankingSql } from '../store/class-ranking-sql.js';
import {
  buildClassRanking,
  type ClassMachinesRow,
  type ClassRanking,
  type CulpritRow,
  type TotalsRow,
} from '../store/class-ranking-build.js';
import type { Bundle, BundleEventOffender } from './schema.js';

/** Store schema version (the tables below); bumped with a migration when they change. */
export const STORE_SCHEMA_VERSION = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bundles (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  machine_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  ingested_ms INTEGER NOT NULL,
  kernel_release TEXT NOT NULL,
  preempt TEXT NOT NULL,
  arch TEXT NOT NULL,
  drivers TEXT NOT NULL,
  playback_ms REAL NOT NULL,
  duration_ms REAL NOT NULL,
  xruns INTEGER NOT NULL,
  kernel_events INTEGER NOT NULL,
  rules_version TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  source TEXT NOT NULL,
  capture_backend TEXT NOT NULL DEFAULT 'unknown'
);
CREATE INDEX IF NOT EXISTS bundles_created ON bundles (created_ms);
CREATE TABLE IF NOT EXISTS bundle_drivers (
  bundle_id INTEGER NOT NULL REFERENCES bundles (id),
  driver TEXT NOT NULL,
  PRIMARY KEY (bundle_id, driver)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bundle_cards (
  bundle_id INTEGER NOT NULL REFERENCES bundles (id),
  card TEXT NOT NULL,
  PRIMARY KEY (bundle_id, card)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS phases (
  bundle_id INTEGER NOT NULL REFERENCES bundles (id),
  kind TEXT NOT NULL,
  ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS phases_bundle ON phases (bundle_id);
CREATE TABLE IF NOT EXISTS stacks (id INTEGER PRIMARY KEY, frames TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS machines (id INTEGER PRIMARY KEY, machine_id TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  bundle_id INTEGER NOT NULL REFERENCES bundles (id),
  idx INTEGER NOT NULL,
  kind TEXT NOT NULL,
  class TEXT NOT NULL,
  function TEXT,
  module TEXT,
  signature TEXT,
  phase TEXT,
  load_kind TEXT NOT NULL,
  driver TEXT NOT NULL,
  stack_id INTEGER NOT NULL REFERENCES stacks (id),
  -- Copied from the bundle so the ranking is one scan of this table, no join.
  machine INTEGER NOT NULL REFERENCES machines (id),
  kernel_release TEXT NOT NULL,
  preempt TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  card TEXT NOT NULL DEFAULT 'unknown',
  capture_backend TEXT NOT NULL DEFAULT 'unknown',
  breakdown_class TEXT,
  top_blocker TEXT
);
CREATE INDEX IF NOT EXISTS events_bundle ON events (bundle_id);
CREATE INDEX IF NOT EXISTS events_stack ON events (stack_id);
-- Rollups kept in step with events at ingest (same transaction), so the full-history
-- ranking reads thousands of rows, not every event. signature '' stands for none.
CREATE TABLE IF NOT EXISTS rollup (
  class TEXT NOT NULL,
  signature TEXT NOT NULL,
  kernel_release TEXT NOT NULL,
  driver TEXT NOT NULL,
  preempt TEXT NOT NULL,
  load_kind TEXT NOT NULL,
  n INTEGER NOT NULL,
  first_ms INTEGER NOT NULL,
  last_ms INTEGER NOT NULL,
  stack_id INTEGER NOT NULL,
  function TEXT,
  module TEXT,
  PRIMARY KEY (class, signature, kernel_release, driver, preempt, load_kind)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rollup_machines (
  signature TEXT NOT NULL,
  kernel_release TEXT NOT NULL,
  driver TEXT NOT NULL,
  preempt TEXT NOT NULL,
  load_kind TEXT NOT NULL,
  machine INTEGER NOT NULL,
  PRIMARY KEY (signature, kernel_release, driver, preempt, load_kind, machine)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rollup_sig_machines (
  signature TEXT NOT NULL,
  machine INTEGER NOT NULL,
  PRIMARY KEY (signature, machine)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  hash TEXT NOT NULL
);
`;

// Schema 2 (the web view's card and capture-backend filters): the columns above that a
// schema-1 store lacks, added in place. A store keeps no bundle text, so rows stored before
// the upgrade say 'unknown' for both (re-ingesting the files with a fresh --db fills them).
const MIGRATE_TO_2 = `
ALTER TABLE bundles ADD COLUMN capture_backend TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE events ADD COLUMN card TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE events ADD COLUMN capture_backend TEXT NOT NULL DEFAULT 'unknown';
INSERT OR IGNORE INTO bundle_cards (bundle_id, card) SELECT id, 'unknown' FROM bundles;
`;

// Schema 3 (bundle format 2): each event's flight recorder breakdown class and its largest
// part, for the per-class ranking (class-ranking-sql.ts). Rows stored before stay NULL (no
// breakdown), which is what a format 1 bundle has. Columns already there are left alone.
const INDEX_3 =
  'CREATE INDEX IF NOT EXISTS events_breakdown ON events (breakdown_class) WHERE breakdown_class IS NOT NULL';
function migrateTo3(db: Database.Database): void {
  const have = new Set(
    (db.prepare('PRAGMA table_info(events)').all() as { name: string }[]).map((c) => c.name),
  );
  for (const col of ['breakdown_class', 'top_blocker']) {
    if (!have.has(col)) db.exec(`ALTER TABLE events ADD COLUMN ${col} TEXT`);
  }
}

export type GroupBy = 'kernel' | 'driver' | 'preempt' | 'load';
export const GROUP_BYS: readonly GroupBy[] = ['kernel', 'driver', 'preempt', 'load'];

/** One bundle ready to store: validated, hashed, with where it came from. */
export interface IngestItem {
  bundle: Bundle;
  hash: string;
  source: string;
  /** When read from a file: lets the next run skip it without reading. */
  file?: { path: string; size: number; mtimeMs: number };
}

export interface IngestResult {
  added: number;
  duplicates: number;
}

/** Re-signs one stack: what the analyzer's rules say about these frames. */
export type SignFrames = (frames: string[]) => BundleEventOffender;

export interface ValueCount {
  value: string;
  count: number;
}

export interface SignatureRank {
  signature: string;
  function: string | null;
  module: string | null;
  incidents: number;
  machines: number;
  /** Incidents per hour of playback summed over the group's bundles. */
  perMachineHour: number;
  /** incidents / all kernel-class incidents of the group (0..1). */
  share: number;
  kernels: {
    first: { release: string; at: string };
    last: { release: string; at: string };
    list: ValueCount[];
  };
  drivers: ValueCount[];
  preempts: ValueCount[];
  loads: ValueCount[];
  exampleStack: string[];
}

export interface RankingGroup {
  /** The --by value (kernel release, driver, ...), null without --by. */
  key: string | null;
  bundles: number;
  machines: number;
  playbackHours: number;
  /** Kernel events by offender class: only 'kernel' is ranked. */
  classes: { kernel: number; idle: number; user: number; none: number };
  signatures: SignatureRank[];
  /** Signatures left out by --top. */
  more: number;
}

export interface FleetRanking {
  by: GroupBy | null;
  sinceMs: number | null;
  /** Rules version the store was last re-signed with, null if never. */
  rulesVersion: string | null;
  /** Rules versions of stored bundles' signatures, most common first. */
  rulesVersions: ValueCount[];
  groups: RankingGroup[];
}

/** `aggregate --by class` / `--class C`: the per-class ranking's query. */
export interface ClassRankQuery {
  sinceMs?: number | null;
  /** One class only (RANKING_CLASSES), null/absent for all. */
  only?: string | null;
  top?: number;
}

export interface RankQuery {
  by?: GroupBy | null;
  sinceMs?: number | null;
  top?: number;
}

// Largest stack-id cache kept in memory during ingest (distinct stacks are few; this bounds
// memory if a fleet has many).
const STACK_CACHE_MAX = 50_000;

/** The SQLite-backed fleet store. Open with openFleetStore; close when done. */
export class FleetStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly stackIds = new Map<string, number>();
  private readonly machineIds = new Map<string, number>();
  private readonly st: Record<string, Database.Statement>;

  constructor(path: string, db: Database.Database) {
    this.path = path;
    this.db = db;
    this.st = {
      insertBundle: db.prepare(
        `INSERT OR IGNORE INTO bundles (hash, machine_id, kind, created_at, created_ms, ingested_ms,
           kernel_release, preempt, arch, drivers, playback_ms, duration_ms, xruns, kernel_events,
           rules_version, tool_version, source, capture_backend)
         VALUES (@hash, @machineId, @kind, @createdAt, @createdMs, @ingestedMs, @kernelRelease,
           @preempt, @arch, @drivers, @playbackMs, @durationMs, @xruns, @kernelEvents,
           @rulesVersion, @toolVersion, @source, @captureBackend)`,
      ),
      insertCard: db.prepare('INSERT OR IGNORE INTO bundle_cards (bundle_id, card) VALUES (?, ?)'),
      insertDriver: db.prepare(
        'INSERT OR IGNORE INTO bundle_drivers (bundle_id, driver) VALUES (?, ?)',
      ),
      insertPhase: db.prepare('INSERT INTO phases (bundle_id, kind, ms) VALUES (?, ?, ?)'),
      insertStack: db.prepare('INSERT OR IGNORE INTO stacks (frames) VALUES (?)'),
      stackId: db.prepare('SELECT id FROM stacks WHERE frames = ?').pluck(),
      upsertRollup: db.prepare(
        `INSERT INTO rollup (class, signature, kernel_release, driver, preempt, load_kind, n,
           first_ms, last_ms, stack_id, function, module)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT DO UPDATE SET n = n + excluded.n, first_ms = MIN(first_ms, excluded.first_ms),
           last_ms = MAX(last_ms, excluded.last_ms), stack_id = MAX(stack_id, excluded.stack_id)`,
      ),
      insertRollupMachine: db.prepare(
        `INSERT OR IGNORE INTO rollup_machines (signature, kernel_release, driver, preempt,
           load_kind, machine) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      insertSigMachine: db.prepare(
        'INSERT OR IGNORE INTO rollup_sig_machines (signature, machine) VALUES (?, ?)',
      ),
      insertMachine: db.prepare('INSERT OR IGNORE INTO machines (machine_id) VALUES (?)'),
      machineId: db.prepare('SELECT id FROM machines WHERE machine_id = ?').pluck(),
      insertEvent: db.prepare(
        `INSERT INTO events (bundle_id, idx, kind, class, function, module, signature, phase,
           load_kind, driver, stack_id, machine, kernel_release, preempt, created_ms, card,
           capture_backend, breakdown_class, top_blocker)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      upsertFile: db.prepare(
        `INSERT INTO files (path, size, mtime_ms, hash) VALUES (?, ?, ?, ?)
         ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
           hash = excluded.hash`,
      ),
      knownFile: db
        .prepare('SELECT 1 FROM files WHERE path = ? AND size = ? AND mtime_ms = ?')
        .pluck(),
      hasHash: db.prepare('SELECT 1 FROM bundles WHERE hash = ?').pluck(),
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
    };
  }

  private stackIdFor(framesJson: string): number {
    const cached = this.stackIds.get(framesJson);
    if (cached !== undefined) return cached;
    this.st['insertStack']!.run(framesJson);
    const id = this.st['stackId']!.get(framesJson) as number;
    if (this.stackIds.size >= STACK_CACHE_MAX) this.stackIds.clear();
    this.stackIds.set(framesJson, id);
    return id;
  }

  private machineIdFor(machineId: string): number {
    const cached = this.machineIds.get(machineId);
    if (cached !== undefined) return cached;
    this.st['insertMachine']!.run(machineId);
    const id = this.st['machineId']!.get(machineId) as number;
    if (this.machineIds.size >= STACK_CACHE_MAX) this.machineIds.clear();
    this.machineIds.set(machineId, id);
    return id;
  }

  /** Whether this exact file (path, size, mtime) was already ingested: skip reading it. */
  isKnownFile(path: string, size: number, mtimeMs: number): boolean {
    return this.st['knownFile']!.get(path, size, mtimeMs) !== undefined;
  }

  /** Whether a bundle with this content hash is stored. */
  hasBundle(hash: string): boolean {
    return this.st['hasHash']!.get(hash) !== undefined;
  }

  /**
   * Stores a batch in ONE transaction: all of it or none of it survives a crash. Bundles
   * already present (same content hash) are counted as duplicates and add nothing.
   */
  ingest(items: IngestItem[], nowMs: number): IngestResult {
    const run = this.db.transaction((batch: IngestItem[]): IngestResult => {
      let added = 0;
      let duplicates = 0;
      for (const item of batch) {
        const rows = bundleToRows(item.bundle, item.hash);
        const { cards, ...bundleRow } = rows.bundle;
        const info = this.st['insertBundle']!.run({
          ...bundleRow,
          ingestedMs: nowMs,
          source: item.source,
        });
        if (item.file) {
          this.st['upsertFile']!.run(item.file.path, item.file.size, item.file.mtimeMs, item.hash);
        }
        if (info.changes === 0) {
          duplicates++;
          continue;
        }
        added++;
        const id = Number(info.lastInsertRowid);
        for (const c of item.bundle.host.cards) this.st['insertDriver']!.run(id, c.driver);
        for (const card of cards) this.st['insertCard']!.run(id, card);
        for (const p of item.bundle.phases)
          this.st['insertPhase']!.run(id, p.kind, p.endMs - p.startMs);
        const machine = this.machineIdFor(rows.bundle.machineId);
        const b = rows.bundle;
        // Events of one bundle folded per combination before touching the rollups.
        const combos = new Map<
          string,
          { e: (typeof rows.events)[number]; n: number; stack: number }
        >();
        for (const e of rows.events) {
          const stack = this.stackIdFor(e.framesJson);
          const k = `${e.class}\u0000${e.signature ?? ''}\u0000${e.driver}\u0000${e.loadKind}`;
          const c = combos.get(k);
          if (c) {
            c.n++;
            if (stack > c.stack) c.stack = stack;
          } else combos.set(k, { e, n: 1, stack });
          this.st['insertEvent']!.run(...eventColumnValues(id, e, stack, machine, b));
        }
        for (const { e, n, stack } of combos.values()) {
          const sig = e.signature ?? '';
          this.st['upsertRollup']!.run(
            e.class,
            sig,
            b.kernelRelease,
            e.driver,
            b.preempt,
            e.loadKind,
            n,
            b.createdMs,
            b.createdMs,
            stack,
            e.function,
            e.module,
          );
          if (e.class === 'kernel' && e.signature !== null) {
            this.st['insertRollupMachine']!.run(
              sig,
              b.kernelRelease,
              e.driver,
              b.preempt,
              e.loadKind,
              machine,
            );
            this.st['insertSigMachine']!.run(sig, machine);
          }
        }
      }
      return { added, duplicates };
    });
    try {
      return run(items);
    } catch (err) {
      // A rolled-back transaction may have cached ids of stacks that no longer exist.
      this.stackIds.clear();
      this.machineIds.clear();
      throw err;
    }
  }

  /** Total bundles stored. */
  count(): number {
    return this.db.prepare('SELECT COUNT(*) FROM bundles').pluck().get() as number;
  }

  /** The rules version of the last --resign, or null. */
  rulesVersion(): string | null {
    return (this.st['getMeta']!.get('rules_version') as string | undefined) ?? null;
  }

  /**
   * Recomputes every stored event's offender from its frames with the current rules, in one
   * transaction; returns how many distinct stacks and events changed. Exists because
   * signature rules improve and old bundles must group with new ones.
   */
  resign(sign: SignFrames, rulesVersion: string): { stacks: number; events: number } {
    const stacks = this.db.prepare('SELECT id, frames FROM stacks').all() as {
      id: number;
      frames: string;
    }[];
    const update = this.db.prepare(
      `UPDATE events SET class = ?, function = ?, module = ?, signature = ?
       WHERE stack_id = ? AND (class IS NOT ? OR function IS NOT ? OR module IS NOT ? OR signature IS NOT ?)`,
    );
    return this.db.transaction(() => {
      let changedStacks = 0;
      let events = 0;
      for (const s of stacks) {
        const o = sign(JSON.parse(s.frames) as string[]);
        const n = update.run(
          o.class,
          o.function,
          o.module,
          o.signature,
          s.id,
          o.class,
          o.function,
          o.module,
          o.signature,
        ).changes;
        if (n > 0) changedStacks++;
        events += n;
      }
      this.db.prepare('UPDATE bundles SET rules_version = ?').run(rulesVersion);
      this.rebuildRollups();
      this.st['setMeta']!.run('rules_version', rulesVersion);
      return { stacks: changedStacks, events };
    })();
  }

  /** Recomputes the rollup tables from events (after re-signing). */
  private rebuildRollups(): void {
    this.db.exec(`
      DELETE FROM rollup;
      INSERT INTO rollup SELECT class, COALESCE(signature, ''), kernel_release, driver, preempt,
        load_kind, COUNT(*), MIN(created_ms), MAX(created_ms), MAX(stack_id), MIN(function), MIN(module)
        FROM events GROUP BY 1, 2, 3, 4, 5, 6;
      DELETE FROM rollup_machines;
      INSERT INTO rollup_machines SELECT DISTINCT signature, kernel_release, driver, preempt,
        load_kind, machine FROM events WHERE class = 'kernel' AND signature IS NOT NULL;
      DELETE FROM rollup_sig_machines;
      INSERT INTO rollup_sig_machines SELECT DISTINCT signature, machine FROM events
        WHERE class = 'kernel' AND signature IS NOT NULL;
    `);
  }

  /** The fleet ranking per signature, optionally grouped and limited to recent bundles. */
  rank(query: RankQuery = {}): FleetRanking {
    const by = query.by ?? null;
    const since = query.sinceMs ?? null;
    const sql = rankingSql(by, since === null ? null : '@since');
    const params = since === null ? {} : { since };
    const pending = buildRanking({
      by,
      sinceMs: since,
      top: query.top ?? Infinity,
      groups: this.db.prepare(sql.groups).all(params) as GroupRow[],
      facets: this.db.prepare(sql.facets).raw().all(params) as FacetRow[],
      machines: this.db.prepare(sql.machines).raw().all(params) as MachineRow[],
      rulesVersion: this.rulesVersion(),
      rulesVersions: this.db.prepare(sql.rulesVersions).all(params) as ValueCount[],
    });
    const stackOf = this.db.prepare('SELECT frames FROM stacks WHERE id = ?').pluck();
    return pending.finish(
      new Map(pending.stackIds.map((id) => [id, stackOf.get(id) as string] as const)),
    );
  }

  /** The fleet ranking per class (breakdown class, else offender class) and its culprits. */
  rankClasses(query: ClassRankQuery = {}): ClassRanking {
    const since = query.sinceMs ?? null;
    const only = query.only ?? null;
    const sql = classRankingSql({
      since: since === null ? null : '@since',
      cls: only === null ? null : '@cls',
    });
    const params = {
      ...(since === null ? {} : { since }),
      ...(only === null ? {} : { cls: only }),
    };
    const totalsParams = since === null ? {} : { since };
    return buildClassRanking({
      sinceMs: since,
      only,
      top: query.top ?? Infinity,
      culprits: this.db.prepare(sql.culprits).all(params) as CulpritRow[],
      classes: this.db.prepare(sql.classes).all(params) as ClassMachinesRow[],
      totals: this.db.prepare(sql.totals).get(totalsParams) as TotalsRow | undefined,
    });
  }

  /** Checkpoints the WAL and closes the database. */
  close(): void {
    if (!this.db.open) return;
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
    }
  }
}

type DatabaseConstructor = typeof Database;

let sqliteModule: DatabaseConstructor | undefined;

function sqliteMissing(err: unknown): XrunhuntError {
  const msg = (err as Error).message.split('\n')[0] ?? '';
  return new XrunhuntError(
    'unsupported',
    `the fleet store needs the optional native module better-sqlite3, which is not available here (${msg})`,
    {
      hint: 'install it next to xrunhunt (npm install -g better-sqlite3; it needs a prebuilt binary for this Node or a C++ compiler); analyze, play, doctor and session work without it',
      cause: err,
    },
  );
}

/** Whether an error from opening a database is the native addon failing to load. */
export function isAddonLoadError(err: unknown): boolean {
  const msg = errorMessage(err);
  return /bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|ERR_DLOPEN_FAILED|invalid ELF/i.test(
    msg,
  );
}

/**
 * Loads better-sqlite3 on first use. Exists because the module is optional: a machine
 * where it could not be installed gets a user error saying what to do, not a crash at import.
 * `load` replaces `require` (tests); only the real module is cached.
 */
export function loadSqlite(load?: (id: string) => unknown): DatabaseConstructor {
  if (!load && sqliteModule) return sqliteModule;
  try {
    const mod = (load ?? createRequire(import.meta.url))('better-sqlite3') as DatabaseConstructor;
    if (!load) sqliteModule = mod;
    return mod;
  } catch (err) {
    throw sqliteMissing(err);
  }
}

/**
 * Opens (creating if needed) the fleet database: WAL journal, schema applied, schema
 * version checked. A file that is not an xrunhunt store is refused, never modified.
 */
export function openFleetStore(path: string): FleetStore {
  const Sqlite = loadSqlite();
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let db: Database.Database;
  try {
    db = new Sqlite(path);
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a committed transaction survives a process crash (kill -9); only
    // a power loss can lose the last commits, never corrupt the file.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .all() as string[];
    if (tables.length > 0 && !tables.includes('meta')) {
      db.close();
      throw new XrunhuntError(
        'input',
        `${path} is an SQLite database but not an xrunhunt fleet store (tables: ${tables.slice(0, 5).join(', ')})`,
        {
          hint: 'choose another file with --db',
        },
      );
    }
    db.exec(SCHEMA);
    const v = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as
      string | undefined;
    if (v === undefined) {
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(
        String(STORE_SCHEMA_VERSION),
      );
    } else if (Number(v) > STORE_SCHEMA_VERSION) {
      db.close();
      throw new XrunhuntError(
        'format',
        `${path} was written by a newer xrunhunt (store schema ${v}); this version reads up to ${STORE_SCHEMA_VERSION}`,
        {
          hint: 'upgrade xrunhunt, or use another --db file',
        },
      );
    } else if (Number(v) < STORE_SCHEMA_VERSION) {
      // Each step in one transaction with its version mark: a crash leaves a whole version.
      const steps: [number, (d: Database.Database) => void][] = [
        [2, (d) => d.exec(MIGRATE_TO_2)],
        [3, migrateTo3],
      ];
      for (const [to, step] of steps) {
        if (Number(v) >= to) continue;
        db.transaction(() => {
          step(db);
          db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(to));
        })();
      }
    }
    // After the migrations: a schema-2 store gets the column first.
    db.exec(INDEX_3);
  } catch (err) {
    if (err instanceof XrunhuntError) throw err;
    if (isAddonLoadError(err)) throw sqliteMissing(err);
    const msg = (err as Error).message;
    throw new XrunhuntError('input', `cannot open the fleet store ${path}: ${msg}`, {
      hint: /not a database|malformed/i.test(msg)
        ? 'the file is not an SQLite database; choose another file with --db'
        : 'check the path and its permissions, or choose another file with --db',
      cause: err,
    });
  }
  return new FleetStore(path, db);
}
