// Builds (or reuses) a synthetic fleet store of N bundles for bench:web, through the store's
// real ingest (validate, content hash, one transaction per batch) without writing N files:
// the web view's numbers depend on the store, not on how the bundles arrived.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { bundleHash } from '../src/bundle/content-hash.js';
import { INGEST_BATCH } from '../src/bundle/ingest.js';
import type { Bundle } from '../src/bundle/schema.js';
import { openFleetStore, type IngestItem } from '../src/bundle/store.js';
import { validateBundle } from '../src/bundle/validate.js';
import { syntheticWebBundle } from '../src/web/synthetic-web-fleet.js';

/** Makes `path` hold exactly `count` synthetic bundles (built once, then reused). */
export function ensureWebBenchStore(
  path: string,
  count: number,
  base: Bundle,
  progress: (done: number) => void = () => {},
): { built: boolean; seconds: number } {
  if (existsSync(path)) {
    const s = openFleetStore(path);
    const n = s.count();
    s.close();
    if (n === count) return { built: false, seconds: 0 };
  }
  const tmp = `${path}.building`;
  for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
  const t0 = Date.now();
  const store = openFleetStore(tmp);
  const machines = Math.max(10, Math.floor(count / 20));
  for (let i = 0; i < count; i += INGEST_BATCH) {
    const batch: IngestItem[] = [];
    for (let j = i; j < Math.min(count, i + INGEST_BATCH); j++) {
      const b = validateBundle(syntheticWebBundle(base, j, machines));
      batch.push({ bundle: b, hash: bundleHash(b), source: `synthetic/${j}` });
    }
    store.ingest(batch, Date.now());
    if ((i / INGEST_BATCH) % 200 === 0) progress(i);
  }
  store.close();
  for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  renameSync(tmp, path);
  return { built: true, seconds: (Date.now() - t0) / 1000 };
}
