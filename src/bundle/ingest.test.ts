// ingestFiles' batching against a recording target (a stand-in for a slow networked store,
// named as such: the real SQLite and PostgreSQL stores are tested through it in test/store/):
// one batch is stored while the next is parsed, never more than one in flight, every file is
// stat'ed once, and a store failure is thrown — not left unhandled — after the batch before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestFiles, type IngestTarget } from './ingest.js';
import { validateBundle } from './validate.js';
import { syntheticBundle } from './synthetic-fleet.js';
import type { IngestItem } from './store.js';
import { FIXTURE_DIR } from './test-fixtures.js';

function writeBundles(dir: string, n: number): string[] {
  const base = validateBundle(
    JSON.parse(readFileSync(new URL('session-ext4-writeback.json', FIXTURE_DIR), 'utf8')),
  );
  return Array.from({ length: n }, (_, i) => {
    const file = join(dir, `b${String(i).padStart(3, '0')}.json`);
    writeFileSync(file, JSON.stringify(syntheticBundle(base, i, 10)));
    return file;
  });
}

/** A target whose ingest takes `delayMs` and logs what happened in which order. */
function slowTarget(delayMs: number, failOnCall = 0) {
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let calls = 0;
  const target: IngestTarget = {
    isKnownFile: () => false,
    knownFiles: () => Promise.resolve(new Set<string>()),
    ingest: async (items: IngestItem[]) => {
      const call = ++calls;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      log.push(`ingest ${call} start (${items.length})`);
      await new Promise((r) => setTimeout(r, delayMs));
      inFlight--;
      log.push(`ingest ${call} end`);
      if (call === failOnCall) throw new Error(`store down at batch ${call}`);
      return { added: items.length, duplicates: 0 };
    },
  };
  return { target, log, maxInFlight: () => maxInFlight };
}

/** node:fs with statSync and openSync counted per path, and their order logged. */
function countingFs(log: string[]) {
  const stats = new Map<string, number>();
  const fs = {
    ...nodeFs,
    statSync: ((p: string, ...rest: unknown[]) => {
      stats.set(p, (stats.get(p) ?? 0) + 1);
      return (nodeFs.statSync as (...a: unknown[]) => unknown)(p, ...rest);
    }) as typeof nodeFs.statSync,
    openSync: ((p: string, ...rest: unknown[]) => {
      log.push(`open ${p.slice(-8)}`);
      return (nodeFs.openSync as (...a: unknown[]) => number)(p, ...rest);
    }) as typeof nodeFs.openSync,
  } as typeof nodeFs;
  return { fs, stats };
}

test('ingest: the next batch is read while one is stored, one in flight at most, one stat per file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-ingest-'));
  try {
    const files = writeBundles(dir, 9);
    const { target, log, maxInFlight } = slowTarget(30);
    const { fs, stats } = countingFs(log);
    const report = await ingestFiles(target, files, { batchSize: 3 }, fs);
    assert.equal(report.added, 9);
    assert.equal(report.files, 9);
    assert.equal(maxInFlight(), 1);
    // Batch 2's files were opened after batch 1's store began and before it ended.
    const start1 = log.indexOf('ingest 1 start (3)');
    const end1 = log.indexOf('ingest 1 end');
    const open4 = log.indexOf('open 003.json');
    assert.ok(start1 >= 0 && start1 < open4 && open4 < end1, log.join('\n'));
    // ...and batch 2's store began only once batch 1's had ended.
    assert.ok(end1 < log.indexOf('ingest 2 start (3)'), log.join('\n'));
    for (const f of files) assert.equal(stats.get(f), 1, `${f} stat'ed ${stats.get(f)} times`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ingest: a store failure while the next batch is read is thrown, never unhandled', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-ingest-'));
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    const files = writeBundles(dir, 9);
    // Batch 2 fails fast while batch 3 is being parsed.
    const { target, log } = slowTarget(1, 2);
    await assert.rejects(ingestFiles(target, files, { batchSize: 3 }), /store down at batch 2/);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled, []);
    assert.ok(!log.includes('ingest 3 start (3)'), 'nothing is stored after a failed batch');
    // The last batch is awaited too: a failure there is not lost when the loop has ended.
    const last = slowTarget(1, 3);
    await assert.rejects(ingestFiles(last.target, files, { batchSize: 3 }), /batch 3/);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    rmSync(dir, { recursive: true, force: true });
  }
});
