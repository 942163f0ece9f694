// Bounded run collections: the first N kept with stable indices and the rest counted; the
// kernel log's first and last bytes kept with a marker where lines were dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeadTailLines, KeptList, pushCapped } from './bounded.js';

test('KeptList keeps the first cap items, returns their indices, counts the rest', () => {
  const k = new KeptList<string>(2);
  assert.equal(k.push('a'), 0);
  assert.equal(k.push('b'), 1);
  assert.equal(k.push('c'), null);
  assert.equal(k.push('d'), null);
  assert.deepEqual(k.items, ['a', 'b']);
  assert.equal(k.dropped, 2);
  assert.equal(k.total, 4);
});

test('HeadTailLines keeps the head and the newest tail within their byte budgets', () => {
  // Lines of 2 bytes + newline = 3 bytes: 2 lines fit a 6-byte head, 3 a 9-byte tail.
  const log = new HeadTailLines(6, 9);
  for (let i = 10; i < 30; i++) log.push(String(i));
  const lines = log.text().trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 2), ['10', '11']);
  assert.match(lines[2]!, /^xrunhunt: 15 kernel log lines dropped here/);
  assert.deepEqual(lines.slice(3), ['27', '28', '29']);
  assert.equal(log.droppedLines, 15);
});

test('HeadTailLines under budget: every line, no marker; empty: empty text', () => {
  const log = new HeadTailLines(100, 100);
  log.push('a');
  log.push('b');
  assert.equal(log.text(), 'a\nb\n');
  assert.equal(new HeadTailLines().text(), '');
});

test('pushCapped stops at the cap and says so', () => {
  const l: number[] = [];
  assert.deepEqual(
    [1, 2, 3].map((v) => pushCapped(l, v, 2)),
    [true, true, false],
  );
  assert.deepEqual(l, [1, 2]);
});
