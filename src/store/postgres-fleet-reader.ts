// The FleetReader over the shared PostgreSQL fleet store (postgres-schema.ts): the web view's
// queries (src/web/sql-fleet-reader.ts) through a node-postgres pool. Their @name parameters
// become $n positions here, values always travel as parameters; text compares bytewise
// (COLLATE "C") as in SQLite, so both stores answer alike.
import type pg from 'pg';
import { XrunhuntError } from '../errors.js';
import type { SqlParams } from '../web/fleet-filter-sql.js';
import { SqlFleetReader, type FleetSql } from '../web/sql-fleet-reader.js';
import { connectFleetPool } from './postgres-store.js';

/** A statement with @name parameters as PostgreSQL's $n text and its values in order. */
export function positionalSql(
  sql: string,
  params: SqlParams,
): { text: string; values: (string | number)[] } {
  const index = new Map<string, number>();
  const values: (string | number)[] = [];
  const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    let i = index.get(name);
    if (i === undefined) {
      const v = params[name];
      if (v === undefined) throw new Error(`SQL parameter @${name} has no value`);
      values.push(v);
      i = values.length;
      index.set(name, i);
    }
    return `$${i}`;
  });
  return { text, values };
}

function postgresFleetSql(pool: pg.Pool): FleetSql {
  return {
    all: async <T>(sql: string, params: SqlParams): Promise<T[]> => {
      const q = positionalSql(sql, params);
      return (await pool.query(q.text, q.values)).rows as T[];
    },
    binary: (expr) => `${expr} COLLATE "C"`,
    // The PostgreSQL ingest upserts machine ids in their own short transactions, so an id
    // of a batch that rolled back may stay: count machines from the bundles instead.
    machinesTableExact: false,
    // Bundles are only ever added (the newest id moves) and re-signing writes rules_version.
    changeMark: async () => {
      const r = await pool.query<{ b: number | null; r: string | null }>(
        "SELECT (SELECT MAX(id) FROM bundles) AS b, (SELECT value FROM meta WHERE key = 'rules_version') AS r",
      );
      return JSON.stringify(r.rows[0] ?? null);
    },
    close: async () => {
      await pool.end();
    },
  };
}

/** FleetReader over a PostgreSQL fleet store. Open with openPostgresFleetReader. */
export class PostgresFleetReader extends SqlFleetReader {
  constructor(pool: pg.Pool) {
    super(postgresFleetSql(pool));
  }
}

/**
 * Connects the web view to a PostgreSQL fleet store: refuses a database that holds no store
 * (the web view never creates one), applies pending migrations once (the only write), then
 * reads only. The URL's password never appears in an error.
 */
export async function openPostgresFleetReader(
  url: string,
  label: string,
): Promise<PostgresFleetReader> {
  const pool = await connectFleetPool(url, label, {
    poolSize: 4,
    applicationName: 'xrunhunt web',
    check: async (p) => {
      const r = await p.query<{ reg: string | null }>(
        "SELECT to_regclass('schema_migrations')::text AS reg",
      );
      if (r.rows[0]?.reg == null) {
        throw new XrunhuntError('input', `${label} holds no xrunhunt fleet store`, {
          hint: 'give the --store URL that `xrunhunt aggregate --store` or `xrunhunt serve --store` writes to',
        });
      }
    },
  });
  return new PostgresFleetReader(pool);
}
