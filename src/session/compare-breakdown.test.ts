// `compare A B` with flight recorder breakdowns: the format 2 fixture (real recorder breakdowns)
// against itself with one class moved, and against a format 1 bundle that has none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson } from '../bundle/test-fixtures.js';
import { validateBundle } from '../bundle/validate.js';
import { compareBundles } from './compare.js';
import { renderComparisonText } from './compare-text.js';

const v2 = () => validateBundle(fixtureJson('../bundles-format-2/session-v2-breakdown.json'));
const v1 = () => validateBundle(fixtureJson('session-ext4-writeback.json'));
const side = (label: string, bundle: ReturnType<typeof v2>) => ({ label, bundle, samples: null });

test('compare: breakdown classes A vs B with shares and each top blocker, in the comparison and its text', () => {
  const b = v2();
  // B: the recorder explained one more XRUN, as interference.
  b.breakdown!.xruns = 5;
  b.breakdown!.byClass = { ...b.breakdown!.byClass, interference: 1 };
  const c = compareBundles(side('A', v2()), side('B', b));
  assert.deepEqual(
    c.breakdowns?.classes.map((x) => [x.class, x.a, x.b]),
    [
      ['irq-latency', 2, 2],
      ['blocked-by-task', 2, 2],
      ['interference', 0, 1],
    ],
  );
  assert.equal(c.breakdowns?.classes[2]!.bShare, 0.2);
  assert.equal(c.breakdowns?.a.topBlocker?.kind, 'irq-latency');
  const text = renderComparisonText(c);
  assert.match(text, /Latency breakdown classes \(flight recorder\): A 4 XRUNs explained, B 5/);
  assert.match(text, /^ {2}interference {6}0 \(0 %\) → 1 \(20 %\)$/m);
  assert.match(text, /top blocker A: irq-latency xrunhunt_inject_unlock, \d+ % of the lateness/);
});

test('compare: one side without breakdowns says how to get them; neither side: no section', () => {
  const c = compareBundles(side('A', v1()), side('B', v2()));
  assert.equal(c.breakdowns?.a.xruns, 0);
  assert.ok(
    c.notes.some((n) =>
      /only B carries flight recorder breakdowns: run the other side with --recorder/.test(n),
    ),
  );
  const none = compareBundles(side('A', v1()), side('B', v1()));
  assert.equal(none.breakdowns, undefined);
  assert.doesNotMatch(renderComparisonText(none), /Latency breakdown/);
});
