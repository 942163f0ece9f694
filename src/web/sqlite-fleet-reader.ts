// The FleetReader over the embedded SQLite fleet store (src/bundle/store.ts), opened
// read-only: the shared queries (sql-fleet-reader.ts) run synchronously inside, through
// better-sqlite3; PRAGMA data_version marks a change (an ingest committed).
import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { XrunhuntError } from '../errors.js';
import { loadSqlite, openFleetStore, STORE_SCHEMA_VERSION } from '../bundle/store.js';
import type { SqlParams } from './fleet-filter-sql.js';
import { SqlFleetReader, type FleetSql } from './sql-fleet-reader.js';

/** The shared queries' connection over one open SQLite store. */
function sqliteFleetSql(db: Database.Database): FleetSql {
  return {
    all: async <T>(sql: string, params: SqlParams): Promise<T[]> =>
      db.prepare(sql).all(params) as T[],
    binary: (expr) => expr,
    // The SQLite ingest adds a machine only in the transaction that stores its bundle.
    machinesTableExact: true,
    changeMark: async () => String(db.pragma('data_version', { simple: true })),
    close: async () => {
      if (db.open) db.close();
    },
  };
}

/** FleetReader over one SQLite store file. Open with openSqliteFleetReader. */
export class SqliteFleetReader extends SqlFleetReader {
  constructor(db: Database.Database) {
    super(sqliteFleetSql(db));
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
