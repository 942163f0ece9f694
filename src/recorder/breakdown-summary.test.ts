// Aggregating breakdowns: counts per class and shape, blockers by net time (a task by comm and
// priority), the share of complete ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeBreakdowns } from './breakdown-summary.js';
import type { BreakdownPart, XrunBreakdown } from './breakdown-types.js';

function bd(
  parts: Omit<BreakdownPart, 'share'>[],
  over: Partial<XrunBreakdown> = {},
): XrunBreakdown {
  const total = parts.reduce((s, p) => s + p.ms, 0);
  return {
    ts: 1,
    shape: 'irq-thread',
    detector: { comm: 'irq/33-snd_hda_', pid: 159, cpu: 0 },
    late: { comm: 'aplay', pid: 180, role: 'writer' },
    dueTs: 1,
    latenessMs: total,
    parts: parts.map((p) => ({ ...p, share: p.ms / total })),
    cls: 'blocked-by-task',
    summary: '',
    complete: true,
    ...over,
  };
}

test('blockers rank by total net ms, a task by comm+prio whatever its pid', () => {
  const s = summarizeBreakdowns([
    bd([
      { kind: 'task', name: 'dd', pid: 179, prio: 120, ms: 2 },
      { kind: 'irq', name: 'snd_hda_intel:card0', ms: 0.1 },
    ]),
    bd([
      { kind: 'task', name: 'dd', pid: 201, prio: 120, ms: 1 },
      { kind: 'task', name: 'dd', pid: 202, prio: 100, ms: 0.5 },
    ]),
    bd(
      [
        {
          kind: 'irq-latency',
          name: 'xrunhunt_inject_unlock',
          pid: 174,
          ms: 9,
          stack: ['xrunhunt_inject_unlock'],
        },
      ],
      {
        cls: 'irq-latency',
        shape: 'hardirq',
        complete: false,
        missing: 'x',
      },
    ),
  ]);
  assert.equal(s.xruns, 3);
  assert.equal(s.complete, 2);
  assert.ok(Math.abs(s.completeShare - 2 / 3) < 1e-9);
  assert.deepEqual(s.byClass, { 'blocked-by-task': 2, 'irq-latency': 1 });
  assert.deepEqual(s.byShape, { 'irq-thread': 2, hardirq: 1 });
  assert.deepEqual(
    s.blockers.map((b) => [b.kind, b.name, b.prio, b.totalMs, b.count, b.topCount]),
    [
      ['irq-latency', 'xrunhunt_inject_unlock', undefined, 9, 1, 1],
      ['task', 'dd', 120, 3, 2, 2],
      ['task', 'dd', 100, 0.5, 1, 0],
      ['irq', 'snd_hda_intel:card0', undefined, 0.1, 1, 0],
    ],
  );
  assert.deepEqual(s.blockers[0]!.stack, ['xrunhunt_inject_unlock']);
  assert.ok(Math.abs(s.totalLatenessMs - 12.6) < 1e-9);
  assert.ok(Math.abs(s.blockers.reduce((a, b) => a + b.share, 0) - 1) < 1e-9);
});

test('completeOnly and an empty list', () => {
  const one = bd([{ kind: 'sleep', name: 'aplay', ms: 2 }], { cls: 'application-late' });
  const s = summarizeBreakdowns([one, { ...one, complete: false }], { completeOnly: true });
  assert.equal(s.xruns, 1);
  const none = summarizeBreakdowns([]);
  assert.deepEqual(
    [none.xruns, none.completeShare, none.meanLatenessMs, none.blockers.length],
    [0, 0, 0, 0],
  );
});
