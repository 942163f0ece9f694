// `xrunhunt web` through the real CLI: a missing store is a user error (no stack, a hint,
// nothing created); a real store is served until --duration, with NDJSON records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildTestFleet } from '../../src/web/test-fleet.js';
import { runCli } from '../helpers/cli.js';

test('web refuses a missing store with a hint and creates nothing', async () => {
  const fleet = await buildTestFleet(1);
  try {
    const missing = join(fleet.dir, 'none.db');
    const r = await runCli(['web', '--db', missing, '--listen', '127.0.0.1:0', '-d', '1s']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no fleet store at .*none\.db/);
    assert.match(r.stderr, /hint: /);
    assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
    assert.equal(existsSync(missing), false);
    const bad = await runCli(['web', '--db', fleet.db, '--listen', 'nowhere']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid --listen "nowhere": expected HOST:PORT/);
  } finally {
    fleet.remove();
  }
});

test('web --json serves the store until --duration and says where', async () => {
  const fleet = await buildTestFleet(5);
  try {
    const r = await runCli([
      'web',
      '--db',
      fleet.db,
      '--listen',
      '127.0.0.1:0',
      '-d',
      '2s',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; url?: string });
    assert.equal(records[0]!.type, 'listening');
    assert.match(records[0]!.url!, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    assert.equal(records.at(-1)!.type, 'stopped');
  } finally {
    fleet.remove();
  }
});
