import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findOffenderFrame, stackWindow } from './stack-view.js';

const frames = Array.from({ length: 20 }, (_, i) => `f${i}`);

test('the offender is found by name, with or without a module suffix', () => {
  assert.equal(findOffenderFrame(['a', 'ext4_write [ext4]', 'b'], 'ext4_write'), 1);
  assert.equal(findOffenderFrame(['a', 'b'], 'c'), -1);
  assert.equal(findOffenderFrame(['a'], null), -1);
  // A longer name with the same prefix is not the offender.
  assert.equal(findOffenderFrame(['foo_bar', 'foo'], 'foo'), 1);
});

test('short stacks are shown whole', () => {
  const w = stackWindow(['a', 'b', 'c'], 1, 5);
  assert.deepEqual(
    w.map((l) => [l.text, l.hit]),
    [
      ['a', false],
      ['b', true],
      ['c', false],
    ],
  );
});

test('long stacks keep the offender in view with summaries of what is cut', () => {
  for (let lines = 1; lines <= 12; lines++) {
    for (const hit of [0, 1, 7, 12, 19]) {
      const w = stackWindow(frames, hit, lines);
      assert.ok(w.length <= lines, `lines=${lines} hit=${hit}: ${w.length} lines`);
      assert.equal(
        w.filter((l) => l.hit).length,
        1,
        `lines=${lines} hit=${hit}: offender shown once`,
      );
      assert.equal(w.find((l) => l.hit)!.text, `f${hit}`);
    }
  }
  const w = stackWindow(frames, 12, 8);
  assert.deepEqual(
    w.map((l) => l.text),
    ['… 10 frames above', 'f10', 'f11', 'f12', 'f13', 'f14', 'f15', '… 4 frames below'],
  );
});

test('without an offender: the first frames and a count of the rest', () => {
  const w = stackWindow(frames, -1, 4);
  assert.deepEqual(
    w.map((l) => l.text),
    ['f0', 'f1', 'f2', '… 17 more frames'],
  );
});
