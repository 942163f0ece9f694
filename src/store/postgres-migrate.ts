// Applies the store's versioned migrations on start. The whole check-and-apply runs under a
// session advisory lock, so any number of receivers and ingesters starting at once migrate
// exactly once; each migration commits together with its schema_migrations row.
import type pg from 'pg';
import { XrunhuntError } from '../errors.js';
import { MIGRATIONS, MIGRATION_LOCK_KEY } from './postgres-schema.js';

/** Brings the database to the newest schema; refuses a newer one and a foreign database. */
export async function applyMigrations(pool: pg.Pool): Promise<number[]> {
  const c = await pool.connect();
  const applied: number[] = [];
  try {
    await c.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    const known = await c.query<{ reg: string | null; bundles: string | null }>(
      "SELECT to_regclass('schema_migrations')::text AS reg, to_regclass('bundles')::text AS bundles",
    );
    if (known.rows[0]!.reg === null && known.rows[0]!.bundles !== null) {
      throw new XrunhuntError(
        'input',
        'this PostgreSQL database has a "bundles" table but no schema_migrations: it is not an xrunhunt fleet store',
        { hint: 'use an empty database for --store (createdb xrunhunt_fleet)' },
      );
    }
    await c.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const rows = await c.query<{ version: number }>('SELECT version FROM schema_migrations');
    const have = new Set(rows.rows.map((r) => r.version));
    const newest = MIGRATIONS.at(-1)!.version;
    const top = Math.max(0, ...have);
    if (top > newest) {
      throw new XrunhuntError(
        'format',
        `the fleet store was migrated by a newer xrunhunt (schema ${top}); this version knows up to ${newest}`,
        { hint: 'upgrade xrunhunt on this machine' },
      );
    }
    for (const m of MIGRATIONS) {
      if (have.has(m.version)) continue;
      await c.query('BEGIN');
      try {
        await c.query(m.sql);
        await c.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          m.version,
          m.name,
        ]);
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK');
        throw err;
      }
      applied.push(m.version);
    }
    return applied;
  } finally {
    await c
      .query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()])
      .catch(() => undefined);
    c.release();
  }
}
