// Test support (not used at run time): a small fleet store built through the real ingest
// (bundle files on disk → ingestFiles → SQLite), from the synthetic web fleet plus, when
// asked, one bundle whose every string is hostile HTML. Returns the bundles themselves so
// tests can count what the store should say without asking the store.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ingestFiles, listBundleFiles } from '../bundle/ingest.js';
import type { Bundle } from '../bundle/schema.js';
import { openFleetStore } from '../bundle/store.js';
import { fixtureJson } from '../bundle/test-fixtures.js';
import { validateBundle } from '../bundle/validate.js';
import { syntheticWebBundle } from './synthetic-web-fleet.js';

/** Markup that must show as text wherever a bundle string lands in a page. */
export const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>&amp;'"`;

export interface TestFleet {
  dir: string;
  db: string;
  bundles: Bundle[];
  remove(): void;
}

/** A bundle whose offender, frames, card, driver and kernel are hostile markup. */
export function hostileBundle(base: Bundle): Bundle {
  const b = syntheticWebBundle(base, 7, 10);
  b.machineId = 'h'.repeat(32);
  b.host = {
    ...b.host,
    kernelRelease: `6.6.6-${HOSTILE}`,
    cards: [{ index: 0, id: 'C0', driver: `snd_${HOSTILE}`, name: `Card ${HOSTILE}` }],
  };
  b.events = b.events.map((e) => ({
    ...e,
    offender: {
      class: 'kernel',
      function: `fn_${HOSTILE}`,
      module: null,
      signature: `sig ${HOSTILE}`,
    },
    frames: [`frame ${HOSTILE}`, 'do_syscall_64'],
  }));
  return b;
}

/** Builds a store of `count` synthetic bundles (+ the hostile one) in a fresh temp folder. */
export async function buildTestFleet(
  count: number,
  options: { hostile?: boolean } = {},
): Promise<TestFleet> {
  const base = validateBundle(fixtureJson('session-ext4-writeback.json'));
  const dir = mkdtempSync(join(tmpdir(), 'xrh-web-fleet-'));
  const inbox = join(dir, 'inbox');
  mkdirSync(inbox);
  const bundles: Bundle[] = [];
  for (let i = 0; i < count; i++)
    bundles.push(syntheticWebBundle(base, i, Math.max(10, count / 8)));
  if (options.hostile) bundles.push(hostileBundle(base));
  bundles.forEach((b, i) =>
    writeFileSync(join(inbox, `b${i}.json.gz`), gzipSync(JSON.stringify(b))),
  );
  const db = join(dir, 'fleet.db');
  const store = openFleetStore(db);
  const report = await ingestFiles(store, listBundleFiles([inbox]));
  store.close();
  if (report.added !== bundles.length) {
    throw new Error(`test fleet: ${report.added} of ${bundles.length} bundles ingested`);
  }
  return {
    dir,
    db,
    bundles: bundles.map((b) => validateBundle(b)),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
