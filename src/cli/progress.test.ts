import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createProgressReporter,
  formatEta,
  formatProgress,
  type ProgressState,
} from './progress.js';

/** A fake terminal (or pipe): records what was written; isTTY as asked. */
function fakeStream(isTTY: boolean): { isTTY: boolean; text: string; write(t: string): boolean } {
  return {
    isTTY,
    text: '',
    write(t: string) {
      this.text += t;
      return true;
    },
  };
}

test('progress line: count, percent, rate and ETA', () => {
  assert.equal(
    formatProgress({ done: 1200, total: 5000, elapsedMs: 4000 }),
    'ingest 1200/5000 bundles (24%), 300/s, ETA 0:13',
  );
  assert.equal(
    formatProgress({ done: 0, total: 10, elapsedMs: 0 }),
    'ingest 0/10 bundles (0%), –/s, ETA –',
  );
  assert.equal(
    formatProgress({ done: 3, total: 7, elapsedMs: 1000 }),
    'ingest 3/7 bundles (42%), 3.0/s, ETA 0:01',
  );
  assert.equal(formatEta(3_723_000), '1:02:03');
  assert.equal(formatEta(59_400), '0:59');
});

test('on a terminal: redrawn in place at most every redrawMs, erased at the end', () => {
  let t = 0;
  const tty = fakeStream(true);
  const p = createProgressReporter(tty, { total: 100, now: () => t, redrawMs: 100 });
  for (let i = 1; i <= 100; i++) {
    t += 10; // 10 ms per item: a redraw every 10 items
    p.update(i);
  }
  p.finish();
  const draws = tty.text.split('\r').filter((s) => s.startsWith('ingest'));
  assert.equal(draws.length, 10);
  assert.equal(draws[0], 'ingest 10/100 bundles (10%), 100/s, ETA 0:01\x1b[K');
  assert.ok(!tty.text.includes('\n'), 'no new lines on a terminal');
  assert.ok(tty.text.endsWith('\r\x1b[K'), 'line erased at the end');
});

test('off a terminal: one record every recordEveryMs and a final one, never a redraw', () => {
  let t = 0;
  const pipe = fakeStream(false);
  const records: ProgressState[] = [];
  const p = createProgressReporter(pipe, {
    total: 1000,
    now: () => t,
    recordEveryMs: 5000,
    record: (s) => records.push(s),
  });
  for (let i = 1; i <= 1000; i++) {
    t += 23; // 23 s in all: a record 5 s after the previous one (items 218, 436, …) and at the end
    p.update(i);
  }
  p.finish();
  assert.equal(pipe.text, '');
  assert.deepEqual(
    records.map((r) => r.done),
    [218, 436, 654, 872, 1000],
  );
  // Without a record sink: plain timestamped lines, no escape codes.
  const plain = fakeStream(false);
  const q = createProgressReporter(plain, { total: 2, now: () => t, recordEveryMs: 1 });
  t += 5;
  q.update(1);
  assert.match(
    plain.text,
    /^\d{4}-\d\d-\d\dT[\d:.]+Z ingest 1\/2 bundles \(50%\), 200\/s, ETA 0:00\n$/,
  );
});
