import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { explainRecorderWindows } from './explain-windows.js';
import { RecorderWindows, DEFAULT_WINDOW_LIMITS } from '../run/recorder-windows.js';

// A real recorder capture from the lab (see test/fixtures/recorder-probe/), cut into windows by
// the recorder probe's own window keeper, then explained: every window must yield one breakdown
// whose parts add up, and a hit line that is not in its window is counted, not invented.
const fixtureDir = new URL('../../test/fixtures/recorder-probe/', import.meta.url);

test('recorder windows cut from a real capture become one breakdown each, parts adding up to 100 %', () => {
  const text = readFileSync(new URL('hda-threadirq-excerpt.txt', fixtureDir), 'utf8');
  const kept = new RecorderWindows(() => 0.05, DEFAULT_WINDOW_LIMITS);
  for (const line of text.split('\n')) kept.push(line);
  kept.finish();
  const windows = kept.windows();
  assert.ok(windows.length > 0, 'the fixture has hits');
  const timing = { periodSeconds: 64 / 48000, bufferSeconds: 128 / 48000 };
  const r = explainRecorderWindows(windows, timing);
  assert.equal(r.unreadable, 0);
  assert.equal(r.breakdowns.length, windows.length);
  assert.equal(r.summary.xruns, windows.length);
  for (const b of r.breakdowns) {
    const sum = b.parts.reduce((s, p) => s + p.share, 0);
    if (b.parts.length > 0) assert.ok(Math.abs(sum - 1) < 1e-6, `shares sum to ${sum}`);
    assert.ok(b.latenessMs >= 0);
  }
});

test('a window whose hit line is missing is counted as unreadable', () => {
  const r = explainRecorderWindows(
    [
      {
        hit: { ts: 12.5, cpu: 0 },
        lines: [
          '          <idle>-0       [000] d..2.    12.400000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=aplay next_pid=180 next_prio=120',
        ],
      },
    ],
    { periodSeconds: 0.001, bufferSeconds: 0.002 },
  );
  assert.equal(r.unreadable, 1);
  assert.equal(r.breakdowns.length, 0);
});
