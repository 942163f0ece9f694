// The embedded SQLite store (better-sqlite3, synchronous) behind the async FleetBackend
// contract, so commands treat it and PostgreSQL alike.
import { openFleetStore, type FleetStore } from '../bundle/store.js';
import type { FleetBackend } from './fleet-backend.js';

/** Wraps an open FleetStore; each call runs synchronously and resolves at once. */
export function sqliteBackend(store: FleetStore): FleetBackend {
  return {
    label: store.path,
    kind: 'sqlite',
    isKnownFile: async (path, size, mtimeMs) => store.isKnownFile(path, size, mtimeMs),
    hasBundle: async (hash) => store.hasBundle(hash),
    ingest: async (items, nowMs) => store.ingest(items, nowMs),
    count: async () => store.count(),
    rank: async (query) => store.rank(query),
    rankClasses: async (query) => store.rankClasses(query),
    rulesVersion: async () => store.rulesVersion(),
    resign: async (sign, rulesVersion) => store.resign(sign, rulesVersion),
    close: async () => store.close(),
  };
}

/** Opens (creating if needed) an SQLite fleet store file as a FleetBackend. */
export function openSqliteBackend(path: string): FleetBackend {
  return sqliteBackend(openFleetStore(path));
}
