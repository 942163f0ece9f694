// `xrunhunt analyze` of a format 2 bundle: the events carry the flight recorder breakdowns the
// bundle holds (real breakdowns of lab captures, test/fixtures/bundles/README.md), and text and
// JSON show the breakdown section with the session's own lines (recorder/breakdown-text.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli.js';

const V2 = join(repoRoot, 'test/fixtures/bundles-format-2/session-v2-breakdown.json');
const V1 = join(repoRoot, 'test/fixtures/bundles/session-ext4-writeback.json');

test('analyze of a format 2 bundle: per-event breakdowns and the summary, in text and JSON', async () => {
  const text = await runCli(['analyze', V2]);
  assert.equal(text.code, 2, text.stderr);
  assert.match(
    text.stdout,
    /latency breakdown \(flight recorder\):\n\s+xrun at 8\.572607 s: blocked-by-task, late by 2\.17 ms/,
  );
  assert.match(text.stdout, /^\s+3 XRUN breakdowns, 3 complete \(100 %\)/m);
  assert.match(text.stdout, /classes: blocked-by-task 2, irq-latency 1/);

  const json = await runCli(['analyze', '--json', V2, V1]);
  assert.equal(json.code, 2, json.stderr);
  const doc = JSON.parse(json.stdout) as {
    events: {
      source: string;
      breakdown?: { cls: string; parts: { name: string }[] };
      detection?: { context: string };
    }[];
    breakdown?: { xruns: number; byClass: Record<string, number> };
  };
  const fromV2 = doc.events.filter((e) => e.source.endsWith('session-v2-breakdown.json'));
  assert.deepEqual(
    fromV2.map((e) => e.breakdown?.cls ?? null),
    [null, 'blocked-by-task', 'irq-latency', 'blocked-by-task'],
  );
  assert.equal(fromV2[1]!.breakdown!.parts[0]!.name, 'cat');
  assert.equal(fromV2[3]!.detection?.context, 'process');
  // The format 1 bundle's events have none; the summary counts the three that do.
  assert.equal(
    doc.events.filter((e) => !e.source.endsWith('session-v2-breakdown.json') && e.breakdown).length,
    0,
  );
  assert.deepEqual(
    [doc.breakdown?.xruns, doc.breakdown?.byClass],
    [3, { 'blocked-by-task': 2, 'irq-latency': 1 }],
  );

  const plain = await runCli(['analyze', '--json', V1]);
  assert.equal((JSON.parse(plain.stdout) as Record<string, unknown>)['breakdown'], undefined);
});
