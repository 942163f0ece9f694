// The rolling ranking must rank exactly as rankOffenders does over the same events (it
// replaces keeping every event on long runs), on real dumps of several offenders and classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeText, rankOffenders } from '../analysis/index.js';
import { kernelLogFixture } from './mock-capture.js';
import { createRollingRanking } from './rolling-offenders.js';

test('same ranking as rankOffenders: counts, shares, signatures, example lines, order', () => {
  const events = [
    'lab-6.1-x86_64-lockup-test_unlock-irq.txt',
    'lab-6.1-x86_64-io-load-ext4-writeback-kernel.txt',
    'lab-6.1-x86_64-lockup-test_unlock-irq.txt',
    'lab-6.1-x86_64-idle-amd_e400_idle.txt',
    'lab-6.1-x86_64-shapes-dmesg.txt',
    'lab-6.1-x86_64-process-context-player-write.txt',
  ].flatMap((f) => analyzeText(kernelLogFixture(f).join('\n')).events);
  assert.ok(events.length >= 4, `enough events to compare (${events.length})`);
  assert.ok(new Set(events.map((e) => e.offender.class)).size >= 2, 'more than one class');
  const rolling = createRollingRanking();
  for (const e of events) rolling.add(e);
  assert.equal(rolling.total, events.length);
  assert.deepEqual(rolling.rank(), rankOffenders(events));
});
