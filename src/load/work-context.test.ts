import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkContext } from './work-context.js';
import type { LoadCounters } from './throughput.js';

// A hand-driven clock: the context is pure logic over now(), breathe() and report().
function harness(durationMs: number, limitBytes?: number) {
  let now = 1000;
  const reports: LoadCounters[] = [];
  let breaths = 0;
  const ctx = new WorkContext(
    {
      now: () => now,
      breathe: () => {
        breaths++;
        return Promise.resolve();
      },
      report: (c) => reports.push(c),
    },
    durationMs,
    limitBytes,
  );
  return { ctx, reports, advance: (ms: number) => (now += ms), breaths: () => breaths };
}

test('counts work, yields every 50 ms, reports at most every 250 ms, stops at the deadline', async () => {
  const h = harness(1000);
  h.ctx.beginActive();
  assert.equal(await h.ctx.tick(100, 1), false);
  assert.equal(h.breaths(), 0, 'no yield before 50 ms of work');
  h.advance(60);
  await h.ctx.tick(100, 1);
  assert.equal(h.breaths(), 1);
  assert.deepEqual(h.reports, [{ bytes: 200, ops: 2, activeMs: 60 }]);
  h.advance(60);
  await h.ctx.tick(0, 1);
  assert.equal(h.reports.length, 1, 'reports are spaced by 250 ms');
  h.advance(900);
  assert.equal(await h.ctx.tick(1, 0), true);
  assert.equal(h.ctx.stopped, 'duration');
  assert.deepEqual(h.ctx.finish(), { bytes: 201, ops: 3, activeMs: 1020 });
});

test('the byte limit and a stop request end the loop with their own cause', async () => {
  const h = harness(10_000, 1000);
  assert.equal(await h.ctx.tick(999), false);
  assert.equal(await h.ctx.tick(1), true);
  assert.equal(h.ctx.stopped, 'limit');
  const s = harness(10_000);
  s.ctx.requestStop();
  assert.equal(await s.ctx.tick(), true);
  assert.equal(s.ctx.stopped, 'stopped');
});

test('preparation time is not active time', async () => {
  const h = harness(10_000);
  h.advance(500); // e.g. writing the read load's file
  h.ctx.beginActive();
  h.advance(200);
  assert.equal(h.ctx.finish().activeMs, 200);
});
