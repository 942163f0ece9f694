import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FRAME_LINES, planLayout, type DashboardLayout } from './layout.js';

function height(col: DashboardLayout['left']): number {
  return col.panels.reduce((n, p) => n + p.lines + FRAME_LINES, 0);
}

test('80×24: two columns that fill exactly the rows below the header, one row spare', () => {
  const l = planLayout(80, 24);
  assert.ok(l.right);
  assert.equal(l.left.width + l.right.width, 80);
  assert.equal(l.headerLines + height(l.left), 23);
  assert.equal(l.headerLines + height(l.right), 23);
  assert.deepEqual(
    l.left.panels.map((p) => p.id),
    ['xruns', 'stream', 'headroom', 'capture'],
  );
  assert.deepEqual(
    l.right.panels.map((p) => p.id),
    ['load', 'offenders', 'stack'],
  );
});

test('every size from 72×12 to 200×60 stays below the terminal height and within its width', () => {
  for (let c = 40; c <= 200; c += 8) {
    for (let r = 12; r <= 60; r += 4) {
      const l = planLayout(c, r);
      const tallest = Math.max(height(l.left), l.right ? height(l.right) : 0);
      assert.ok(l.headerLines + tallest <= r - 1, `${c}×${r}: ${l.headerLines + tallest} rows`);
      assert.ok(l.left.width + (l.right?.width ?? 0) <= c, `${c}×${r}: too wide`);
    }
  }
});

test('narrow terminals get one column with the most telling panels first', () => {
  const l = planLayout(60, 30);
  assert.equal(l.right, null);
  assert.equal(l.left.width, 60);
  assert.equal(l.left.panels[0]!.id, 'xruns');
});

test('taller terminals give the extra rows to offenders and the stack', () => {
  const small = planLayout(120, 24);
  const big = planLayout(120, 50);
  const lines = (l: DashboardLayout, id: string) => l.right!.panels.find((p) => p.id === id)!.lines;
  assert.ok(lines(big, 'stack') > lines(small, 'stack'));
  assert.ok(lines(big, 'offenders') >= lines(small, 'offenders'));
});

test('unknown sizes fall back to 80×24', () => {
  assert.deepEqual(planLayout(Number.NaN, 0), planLayout(80, 24));
});
