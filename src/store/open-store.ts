// Opens the fleet store a StoreSpec names: the SQLite file, or the PostgreSQL server (pg is
// loaded only then, so SQLite users never load it).
import type { FleetBackend } from './fleet-backend.js';
import type { StoreSpec } from './store-spec.js';
import type { PostgresStoreOptions } from './postgres-store.js';

/** One entry point for aggregate and serve: the backend for --store / $XRUNHUNT_STORE / --db. */
export async function openFleetBackend(
  spec: StoreSpec,
  options: PostgresStoreOptions = {},
): Promise<FleetBackend> {
  if (spec.kind === 'sqlite') {
    const { openSqliteBackend } = await import('./sqlite-backend.js');
    return openSqliteBackend(spec.path);
  }
  const { openPostgresStore } = await import('./postgres-store.js');
  return openPostgresStore(spec.url, spec.label, options);
}
