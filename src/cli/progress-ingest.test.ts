import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFleetStore } from '../bundle/store.js';
import { syntheticBundle } from '../bundle/synthetic-fleet.js';
import { fixtureJson } from '../bundle/test-fixtures.js';
import { validateBundle } from '../bundle/validate.js';
import { createProgressReporter } from './progress.js';
import { ingestFilesWithProgress } from './progress-ingest.js';

test('ingest of 450 real bundle files in chunks of 200: three redraws on a fake terminal, one report', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-progress-'));
  try {
    const base = validateBundle(fixtureJson('session-ext4-writeback.json'));
    const files: string[] = [];
    for (let i = 0; i < 450; i++) {
      const f = join(dir, `b${i}.json`);
      writeFileSync(f, JSON.stringify(syntheticBundle(base, i)));
      files.push(f);
    }
    writeFileSync(join(dir, 'bad.json'), '{"formatVersion": 1}');
    files.push(join(dir, 'bad.json'));
    let text = '';
    const tty = { isTTY: true, write: (t: string) => (text += t) };
    const progress = createProgressReporter(tty, { total: files.length, redrawMs: 0 });
    const store = openFleetStore(join(dir, 'fleet.db'));
    try {
      const r = await ingestFilesWithProgress(store, files, {}, progress, 200);
      assert.equal(r.files, 451);
      assert.equal(r.added + r.duplicates, 450);
      assert.equal(r.skipped.length, 1);
      assert.equal(store.count(), r.added);
    } finally {
      store.close();
    }
    const draws = text.split('\r').filter((s) => s.startsWith('ingest'));
    assert.deepEqual(
      draws.map((d) => d.split(' (')[0]),
      ['ingest 200/451 bundles', 'ingest 400/451 bundles', 'ingest 451/451 bundles'],
    );
    assert.ok(text.endsWith('\r\x1b[K'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
