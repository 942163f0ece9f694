// The recorder's bounded memory: events older than the kept span go, the count cap holds
// whatever the rate, and a window comes out sorted across CPUs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventWindow } from './event-window.js';
import type { TraceEvent } from './breakdown-types.js';

const ev = (cpu: number, ts: number): TraceEvent => ({
  cpu,
  ts,
  comm: 'x',
  pid: 1,
  flags: 'd..2.',
  name: 'sched_waking',
  fields: {},
});

test('keeps only the last keepSeconds behind the newest event', () => {
  const w = new EventWindow({ keepSeconds: 0.0105, maxEvents: 1000 });
  for (let i = 0; i <= 100; i++) w.push(ev(0, i / 1000)); // 0 … 0.1 s
  assert.equal(w.length, 11, '0.090 … 0.100 s');
  assert.equal(w.oldestTs(), 0.09);
  assert.equal(w.droppedByCap, 0);
});

test('the count cap holds at any rate and says how much it dropped', () => {
  const w = new EventWindow({ keepSeconds: 10, maxEvents: 5 });
  for (let i = 0; i < 12; i++) w.push(ev(0, i / 1e6));
  assert.equal(w.length, 5);
  assert.equal(w.droppedByCap, 7);
  assert.deepEqual(
    w.between(0, 1).map((e) => Math.round(e.ts * 1e6)),
    [7, 8, 9, 10, 11],
  );
});

test('between() is inclusive and sorted across CPUs (trace_pipe interleaves them loosely)', () => {
  const w = new EventWindow({ keepSeconds: 1, maxEvents: 100 });
  for (const [cpu, ts] of [
    [0, 0.001],
    [0, 0.003],
    [1, 0.002],
    [1, 0.004],
    [0, 0.005],
  ] as const)
    w.push(ev(cpu, ts));
  assert.deepEqual(
    w.between(0.002, 0.004).map((e) => `${e.cpu}@${e.ts}`),
    ['1@0.002', '0@0.003', '1@0.004'],
  );
});

test('push stays cheap: 200 000 events through a 1 000-event window', () => {
  const w = new EventWindow({ keepSeconds: 0.05, maxEvents: 1000 });
  const t = process.hrtime.bigint();
  for (let i = 0; i < 200_000; i++) w.push(ev(i % 2, i * 1e-5));
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  assert.ok(w.length <= 1000);
  // Amortised O(1): far below the 2 s a copying implementation would take; wide margin for load.
  assert.ok(ms < 1500, `${ms.toFixed(0)} ms`);
});

test('bad sizes are refused with what was expected', () => {
  assert.throws(() => new EventWindow({ keepSeconds: 0, maxEvents: 10 }), /keepSeconds > 0/);
  assert.throws(() => new EventWindow({ keepSeconds: 1, maxEvents: 0.5 }), /integer maxEvents/);
});
