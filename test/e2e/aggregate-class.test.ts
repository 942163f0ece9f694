// `xrunhunt aggregate --by class` / `--class C` end to end: the real CLI process, real SQLite,
// the format 2 fixture (real recorder breakdowns) beside a format 1 bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli.js';

const FIX = join(repoRoot, 'test/fixtures/bundles');

test('aggregate --by class ranks breakdown and stack classes; --class narrows; bad input is a usage error', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-agg-class-'));
  const db = join(dir, 'fleet.db');
  try {
    const files = [
      join(FIX, '../bundles-format-2/session-v2-breakdown.json'),
      join(FIX, 'session-lab-test-lockup.json.gz'),
    ];
    const all = await runCli(['aggregate', '--db', db, '--by', 'class', ...files]);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^Fleet by class: 7 kernel events in 2 bundles from 2 machines/m);
    assert.match(all.stdout, /^kernel — 3 incidents \(43%\) on 1 machine/m);
    assert.match(
      all.stdout,
      /^blocked-by-task — 2 incidents \(29%\) on 1 machine.*another task kept/m,
    );
    assert.match(all.stdout, /^ {4}1\. task cat \(prio 120\) — 1 \(50%\)/m);

    const one = await runCli(['aggregate', '--db', db, '--class', 'irq-latency', '--json']);
    assert.equal(one.code, 0, one.stderr);
    const doc = JSON.parse(one.stdout) as {
      classes: {
        only: string;
        classes: { class: string; incidents: number; culprits: { culprit: string }[] }[];
      };
    };
    assert.equal(doc.classes.only, 'irq-latency');
    assert.deepEqual(
      doc.classes.classes.map((c) => [c.class, c.incidents]),
      [['irq-latency', 1]],
    );
    assert.match(doc.classes.classes[0]!.culprits[0]!.culprit, /^irq-latency /);

    const bad = await runCli(['aggregate', '--db', db, '--class', 'bad-luck']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /blocked-by-task/);
    assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
    const mixed = await runCli(['aggregate', '--db', db, '--class', 'kernel', '--by', 'kernel']);
    assert.equal(mixed.code, 1);
    assert.match(mixed.stderr, /cannot be combined with --by kernel/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
