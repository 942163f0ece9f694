import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAdmissionGate, type AdmissionTicket } from './admission-gate.js';

test('slots and bytes both bound admission; waiters are admitted on release', () => {
  const g = createAdmissionGate({ slots: 2, bytes: 100, maxWaiting: 10 });
  const a = g.request(60, () => assert.fail('a is granted at once'));
  assert.equal(a.kind, 'granted');
  const granted: AdmissionTicket[] = [];
  const b = g.request(60, (t) => granted.push(t));
  assert.equal(b.kind, 'queued', 'bytes would exceed the budget');
  assert.deepEqual(g.stats(), { slotsInUse: 1, bytesInUse: 60, waiting: 1 });
  g.release((a as { ticket: AdmissionTicket }).ticket);
  assert.equal(granted.length, 1);
  assert.deepEqual(g.stats(), { slotsInUse: 1, bytesInUse: 60, waiting: 0 });
  const c = g.request(10, () => undefined);
  assert.equal(c.kind, 'granted');
  const d = g.request(1, () => undefined);
  assert.equal(d.kind, 'queued', 'no slot left');
});

test('on release, waiters are admitted in arrival order, each that fits (first fit)', () => {
  const g = createAdmissionGate({ slots: 4, bytes: 100, maxWaiting: 10 });
  const held = g.request(90, () => undefined);
  assert.equal(held.kind, 'granted');
  const order: string[] = [];
  const big = g.request(80, () => order.push('big'));
  const huge = g.request(95, () => order.push('huge'));
  const small = g.request(10, () => order.push('small'));
  // Nobody jumps the queue on arrival, even when it would fit (10 fits next to 90).
  assert.deepEqual([big.kind, huge.kind, small.kind], ['queued', 'queued', 'queued']);
  if (held.kind === 'granted') g.release(held.ticket);
  // 80 fits, 95 does not (80 + 95 > 100), 10 does: the small one is not stuck behind it.
  assert.deepEqual(order, ['big', 'small']);
  assert.deepEqual(g.stats(), { slotsInUse: 2, bytesInUse: 90, waiting: 1 });
  if (huge.kind === 'queued') huge.cancel();
  assert.equal(g.stats().waiting, 0);
});

test('grow never waits; release is idempotent; queue and budget limits refuse', () => {
  const g = createAdmissionGate({ slots: 3, bytes: 100, maxWaiting: 1 });
  const a = g.request(30, () => undefined);
  const b = g.request(30, () => undefined);
  assert.ok(a.kind === 'granted' && b.kind === 'granted');
  assert.equal(g.grow(a.ticket, 70), true);
  assert.equal(g.grow(b.ticket, 31), false, 'over budget: refused at once');
  assert.deepEqual(g.stats(), { slotsInUse: 2, bytesInUse: 100, waiting: 0 });
  assert.equal(g.request(101, () => undefined).kind, 'refused');
  const w = g.request(10, () => undefined);
  assert.equal(w.kind, 'queued');
  const r = g.request(10, () => undefined);
  assert.ok(r.kind === 'refused' && r.reason === 'queue-full');
  if (w.kind === 'queued') w.cancel();
  g.release(a.ticket);
  g.release(a.ticket);
  assert.deepEqual(g.stats(), { slotsInUse: 1, bytesInUse: 30, waiting: 0 });
  assert.equal(g.grow(a.ticket, 50), false, 'a released ticket cannot grow');
});
