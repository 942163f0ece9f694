// The live analyzer ranks as it goes (a rolling tally, no events kept): after lines fed in
// chunks, its ranking must equal rankOffenders over the events it handed out, on real dumps
// of several offenders and classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankOffenders } from '../analysis/index.js';
import type { XrunEvent } from '../analysis/index.js';
import { kernelLogFixture } from '../run/mock-capture.js';
import { createLiveAnalyzer } from './live-analyzer.js';

test('live ranking over chunked input equals rankOffenders over the events handed out', () => {
  const lines = [
    'lab-6.1-x86_64-lockup-test_unlock-irq.txt',
    'lab-6.1-x86_64-io-load-ext4-writeback-kernel.txt',
    'lab-6.1-x86_64-lockup-test_unlock-irq.txt',
    'lab-6.1-x86_64-idle-amd_e400_idle.txt',
    'lab-6.1-x86_64-shapes-dmesg.txt',
    'lab-6.1-x86_64-process-context-player-write.txt',
  ].flatMap((f) => kernelLogFixture(f));
  const live = createLiveAnalyzer();
  const events: XrunEvent[] = [];
  for (const l of lines) events.push(...live.push(l));
  events.push(...live.finish());
  assert.ok(events.length >= 4, `enough events to compare (${events.length})`);
  assert.ok(new Set(events.map((e) => e.offender.class)).size >= 2, 'more than one class');
  assert.equal(live.eventCount, events.length);
  assert.deepEqual(live.rank(), rankOffenders(events));
});
