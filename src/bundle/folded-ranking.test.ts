import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleStackRootFirst, rankingFoldedLines } from './folded-ranking.js';
import { ingestFiles } from './ingest.js';
import { openFleetStore } from './store.js';
import { fixtureJson } from './test-fixtures.js';

test('bundle stacks: markers, "?" words and user RIP dropped, kernel RIP kept, root first', () => {
  assert.deepEqual(
    bundleStackRootFirst(['leaf [m]', '? junk', '</IRQ>', '<TASK>', 'RIP: mid', 'root']),
    ['root', 'mid', 'leaf [m]'],
  );
  assert.deepEqual(bundleStackRootFirst(['a', 'RIP: 0033:0x7f99', 'b']), ['b', 'a']);
});

test('aggregate folded: stored bundles, one with hostile frames, fold to safe weighted lines', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-folded-'));
  try {
    const doc = fixtureJson('session-lab-test-lockup.json.gz');
    const events = doc['events'] as { frames: string[] }[];
    // A bundle anyone could send: a frame that tries to add frames, a line and a count.
    for (const e of events) e.frames = ['evil;fake\nroot 99999', ...e.frames];
    writeFileSync(join(dir, 'hostile.json'), JSON.stringify(doc));
    const store = openFleetStore(join(dir, 'fleet.db'));
    try {
      await ingestFiles(store, [join(dir, 'hostile.json')]);
      const lines = rankingFoldedLines(store.rank({}));
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, /^[^;\n]+(;[^;\n]+)* 3\n$/);
      assert.ok(lines[0]!.endsWith(';evil_fake?root 99999 3\n'), lines[0]);
      assert.ok(lines[0]!.startsWith('entry_SYSCALL_64_after_hwframe;do_syscall_64;'), lines[0]);
      const byDriver = rankingFoldedLines(store.rank({ by: 'driver' }));
      assert.ok(byDriver[0]!.startsWith('snd_dummy;entry_SYSCALL_64_after_hwframe;'), byDriver[0]);
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
