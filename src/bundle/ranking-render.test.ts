import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundleHash } from './content-hash.js';
import { listCounts, renderRankingMarkdown, renderRankingText } from './ranking-render.js';
import { openFleetStore, type FleetRanking } from './store.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

function fixtureRanking(by: 'kernel' | null = null): FleetRanking {
  const s = openFleetStore(':memory:');
  try {
    const items = ['session-ext4-writeback.json', 'session-lab-test-lockup.json.gz'].map((f) => {
      const b = validateBundle(fixtureJson(f));
      return { bundle: b, hash: bundleHash(b), source: f };
    });
    s.ingest(items, 0);
    return s.rank({ by });
  } finally {
    s.close();
  }
}

test('text: the conclusion first, then the table with facts per signature', () => {
  const text = renderRankingText(fixtureRanking());
  const lines = text.split('\n');
  assert.equal(
    lines[0],
    'Top offender: __filemap_add_folio — 3 incidents on 1 machine, 50% of kernel-code xruns (signature: _raw_spin_unlock_irq | __filemap_add_folio)',
  );
  assert.match(text, /Fleet: 2 bundles from 2 machines, 1\.6 min of playback/);
  assert.match(
    text,
    /kernel events: 7 — kernel code 6 \(86%\), idle 1, user space 0, unattributed 0/,
  );
  assert.match(text, /drivers snd_hda_intel \(3\); preemption voluntary \(3\); load write \(3\)/);
  assert.match(text, /Example stack of the top offender/);
});

test('markdown: escaped pipes in signatures, one table per group', () => {
  const md = renderRankingMarkdown(fixtureRanking('kernel'));
  assert.equal(md.match(/^## kernel /gm)?.length, 2);
  assert.match(md, /`_raw_spin_unlock_irq \\\| __filemap_add_folio`/);
  assert.match(md, /```\ndump_stack_lvl\n/);
});

test('an empty store says so', () => {
  const empty: FleetRanking = {
    by: null,
    sinceMs: null,
    rulesVersion: null,
    rulesVersions: [],
    groups: [],
  };
  assert.match(renderRankingText(empty), /^No bundles in the store yet/);
});

test('listCounts shortens long lists', () => {
  const v = ['a', 'b', 'c', 'd', 'e'].map((value, i) => ({ value, count: 5 - i }));
  assert.equal(listCounts(v), 'a (5), b (4), c (3), +2 more');
});
