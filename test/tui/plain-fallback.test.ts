// `session --tui` with stdout not a terminal (a pipe, as in scripts and CI): the dashboard
// falls back to plain timestamped lines, then the usual text report; no escape sequences.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-tui-plain-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('session --tui into a pipe prints plain event lines, then the report', async () => {
  const r = await runCli(
    [
      'session',
      '--tui',
      '--device',
      'null',
      '--phases',
      'idle:1s,write:1s',
      '--out',
      join(dir, 'out'),
    ],
    { env: { XDG_STATE_HOME: join(dir, 'state') }, timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(
    lines[0]!,
    /^\[0:00\] session on null, 48000 Hz, period \d+ frames × \d+, phases idle:1s,write:1s/,
  );
  assert.ok(
    lines.some((l) => /^\[\d+:\d\d\] playing: 48000 Hz, period \d+ \/ buffer \d+ frames/.test(l)),
    r.stdout,
  );
  assert.ok(
    lines.some((l) => /^\[\d+:\d\d\] phase 1\/2 idle \(idle\) for 0:01$/.test(l)),
    r.stdout,
  );
  assert.ok(
    lines.some((l) => /^\[\d+:\d\d\] phase 2\/2 write \(write\)/.test(l)),
    r.stdout,
  );
  assert.ok(
    lines.some((l) => /^\[\d+:\d\d\] phase write done: 0 xruns, [\d.]+ MB\/s/.test(l)),
    r.stdout,
  );
  assert.ok(
    lines.some((l) => /^\[\d+:\d\d\] session ended \(exit 0\)$/.test(l)),
    r.stdout,
  );
  // The text report follows the event lines.
  const ended = lines.findIndex((l) => l.includes('session ended'));
  assert.ok(
    lines.slice(ended).some((l) => l === 'Conclusion'),
    r.stdout,
  );
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(r.stdout, /\x1b/);
});

test('session --tui --json keeps stdout one JSON document (the event lines go to stderr)', async () => {
  const r = await runCli(
    [
      'session',
      '--tui',
      '--json',
      '--device',
      'null',
      '--phases',
      'idle:1s',
      '--out',
      join(dir, 'out2'),
    ],
    { env: { XDG_STATE_HOME: join(dir, 'state') }, timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { phases: { name: string }[] };
  assert.deepEqual(
    report.phases.map((p) => p.name),
    ['idle'],
  );
  assert.match(r.stderr, /^\[0:00\] session on null/m);
  assert.match(r.stderr, /session ended \(exit 0\)/);
});
