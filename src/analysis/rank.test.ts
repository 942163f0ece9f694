import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOffenderTally } from './rank.js';
import type { XrunEvent } from './types.js';

// rank.ts MAX_RANKED_OFFENDERS (a literal: the test must also run against code without it).
const MAX_RANKED_OFFENDERS = 20000;

const kernelEvent = (fn: string, line: number, signature = fn): XrunEvent => ({
  kind: 'xrun',
  pcm: 'pcmC0D0p:0',
  line,
  header: 'XRUN: pcmC0D0p:0',
  offender: { class: 'kernel', function: fn, module: null, signature },
  frames: [],
});

test('issue 30: more distinct offenders than the bound keep the ranking bounded, the heavy ones on top, with a warning', () => {
  const tally = createOffenderTally();
  const names = MAX_RANKED_OFFENDERS * 2.5;
  let line = 0;
  for (let i = 0; i < names; i++) {
    tally.add(kernelEvent(`noise_${i}`, ++line));
    // One offender from the start, one first seen long after the bound was reached.
    if (i % 500 === 0) tally.add(kernelEvent('early_hog', ++line));
    if (i > MAX_RANKED_OFFENDERS * 1.5 && i % 100 === 0) tally.add(kernelEvent('late_hog', ++line));
  }
  const ranked = tally.offenders();
  assert.ok(ranked.length <= MAX_RANKED_OFFENDERS, `${ranked.length} groups ranked`);
  assert.deepEqual(
    ranked.slice(0, 2).map((o) => o.function),
    ['late_hog', 'early_hog'],
  );
  // Seen before any pruning: counted exactly.
  assert.equal(ranked[1]!.count, names / 500);
  assert.equal(tally.events, line);
  assert.equal(tally.summary(line).events, line);
  assert.equal(tally.summary(line).byClass.kernel, line);
  const w = tally.warnings();
  assert.equal(w.length, 1);
  assert.match(w[0]!, /more than 20000 distinct offenders .* not ranked/);
});

test('issue 30: distinct signatures per offender are bounded, with a warning', () => {
  const tally = createOffenderTally();
  for (let i = 0; i < 3000; i++) tally.add(kernelEvent('f', i + 1, `lock_${i} | f`));
  const [f] = tally.offenders();
  assert.equal(f!.count, 3000);
  assert.ok(f!.signatures <= 1000);
  assert.match(tally.warnings().join('\n'), /more than 1000 distinct signatures/);
});

test('a tally within the bounds says nothing', () => {
  const tally = createOffenderTally();
  for (let i = 0; i < 100; i++) tally.add(kernelEvent(`f${i % 7}`, i + 1));
  assert.equal(tally.offenders().length, 7);
  assert.deepEqual(tally.warnings(), []);
});
