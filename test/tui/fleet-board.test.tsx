// The aggregate --watch --tui board, from a real fleet store ranking (SQLite in a temp
// folder, filled from the project's bundle fixtures), rendered at 80 and 120 columns.
import '../helpers/ink-interactive.js';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderToString } from 'ink';
import { openFleetStore } from '../../src/bundle/store.js';
import { ingestFiles } from '../../src/bundle/ingest.js';
import { FleetBoard } from '../../src/tui/components/fleet-board.js';
import { repoRoot } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-fleet-board-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const store = openFleetStore(join(dir, 'fleet.db'));
await ingestFiles(
  store,
  ['session-ext4-writeback.json', 'session-lab-test-lockup.json.gz'].map((f) =>
    join(repoRoot, 'test/fixtures/bundles', f),
  ),
  {},
);
const ranking = store.rank({ by: null, sinceMs: null, top: 20 });
store.close();

for (const columns of [80, 120]) {
  test(`fleet board at ${columns}×24: ranked rows with counts, shares and names`, () => {
    const out = renderToString(
      <FleetBoard
        ranking={ranking}
        watching={['/srv/inbox']}
        note="2 new"
        updatedAt="20:00:00"
        columns={columns}
        rows={24}
      />,
      { columns },
    );
    const lines = out.split('\n');
    for (const l of lines) assert.ok([...l].length <= columns, `fits ${columns}: "${l}"`);
    assert.ok(lines.length <= 23);
    assert.match(lines[0]!, /^xrunhunt fleet watching \/srv\/inbox/);
    assert.match(lines[1]!, /updated 20:00:00 · 2 new/);
    assert.match(out, /fleet: 2 bundles, 2 machines/);
    const rows = lines.filter((l) => /^ {2}[12] /.test(l));
    assert.equal(rows.length, 2);
    assert.match(rows.join('\n'), /3 +1 +50% .*__filemap_add_folio/);
    assert.match(rows.join('\n'), /3 +1 +50% .*test_unlock \[test_lockup\]/);
  });
}

test('fleet board before the first ranking, and with fewer rows than offenders', () => {
  const waiting = renderToString(
    <FleetBoard
      ranking={null}
      watching={['/in']}
      note=""
      updatedAt={null}
      columns={80}
      rows={24}
    />,
  );
  assert.match(waiting, /reading the store/);
  assert.match(waiting, /waiting for bundles/);
  const tiny = renderToString(
    <FleetBoard ranking={ranking} watching={['/in']} note="" updatedAt="x" columns={80} rows={6} />,
  );
  assert.ok(tiny.split('\n').length <= 5, tiny);
});
