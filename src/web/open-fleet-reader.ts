// Opens the web view's reader for the store a StoreSpec names (--store, $XRUNHUNT_STORE or
// --db, resolved as aggregate and serve resolve them): the SQLite file, or the PostgreSQL
// server (pg is loaded only then).
import type { StoreSpec } from '../store/store-spec.js';
import type { FleetReader } from './fleet-reader.js';

/** One entry point for `web` and `serve --web`: the FleetReader over the store `spec` names. */
export async function openFleetReader(spec: StoreSpec): Promise<FleetReader> {
  if (spec.kind === 'sqlite') {
    const { openSqliteFleetReader } = await import('./sqlite-fleet-reader.js');
    return openSqliteFleetReader(spec.path);
  }
  const { openPostgresFleetReader } = await import('../store/postgres-fleet-reader.js');
  return openPostgresFleetReader(spec.url, spec.label);
}
