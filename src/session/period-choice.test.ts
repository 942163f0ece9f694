import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  choosePeriod,
  describePeriodChoice,
  probePasses,
  probeStoppedAfterS,
} from './period-choice.js';
import { cellNeeded } from './stress.js';

const probe = (
  periodFrames: number,
  xruns: number | null,
  note: string | null = null,
  durationMs = 6000,
) => ({
  periodFrames,
  xruns,
  durationMs: xruns === null ? null : durationMs,
  note,
});

test('the smallest nearly xrun-free period wins, even when a larger one ran too', () => {
  const c = choosePeriod([probe(64, 2, null, 310), probe(128, 1), probe(256, 0)])!;
  assert.equal(c.periodFrames, 128);
  assert.equal(c.nearlyXrunFree, true);
  assert.match(
    describePeriodChoice(c),
    /^Period 128 chosen by 6 s idle probes .* xruns per probe \(each stops at its first xrun over that\): 64 \(2 in 0\.3 s\), 128 \(1\), 256 \(0\)\.$/,
  );
});

test('probes that stopped early are told apart by how long they lasted: the slowest to fail wins the fallback', () => {
  // Every probe failed at its second xrun; 512 took the longest to get there.
  const c = choosePeriod([
    probe(64, 2, null, 40),
    probe(128, 2, null, 90),
    probe(256, 2, null, 700),
    probe(512, 3, null, 5200),
    probe(1024, 2, null, 2100),
  ])!;
  assert.equal(c.periodFrames, 512);
  assert.equal(c.nearlyXrunFree, false);
  assert.equal(probeStoppedAfterS(c.probes[0]!), 0.1);
  assert.equal(probeStoppedAfterS(c.probes[3]!), 5.2);
  assert.equal(probeStoppedAfterS(probe(256, 0)), null, 'a full probe did not stop early');
});

test('no quiet period: the one with fewest xruns (the largest on ties), said plainly', () => {
  const c = choosePeriod([
    probe(64, 900),
    probe(128, 30),
    probe(256, 30),
    probe(512, null, 'boom'),
  ])!;
  assert.equal(c.periodFrames, 256);
  assert.equal(c.nearlyXrunFree, false);
  assert.match(describePeriodChoice(c), /no period tried was nearly xrun-free idle/);
  assert.equal(choosePeriod([probe(64, null, 'cannot open')]), null);
});

test('the stress loop stops at the first nearly quiet probe (one xrun is "nearly")', () => {
  const cells = [
    {
      load: 'idle',
      periodFrames: 64,
      xruns: 1,
      xrunsPerMin: 7.5,
      kernelEvents: 0,
      topOffender: null,
      durationMs: 8000,
      note: null,
    },
  ];
  assert.equal(cellNeeded(cells, 'idle', false), true);
  assert.equal(cellNeeded(cells, 'idle', false, probePasses), false);
  assert.equal(probePasses({ xruns: 2 }), false);
  assert.equal(probePasses({ xruns: null }), false);
});
