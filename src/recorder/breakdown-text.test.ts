// The printed lines of one breakdown and of a summary; names from the traced machine are escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdownConclusion, breakdownLines, partLine, summaryLines } from './breakdown-text.js';
import { summarizeBreakdowns } from './breakdown-summary.js';
import type { XrunBreakdown } from './breakdown-types.js';

const b: XrunBreakdown = {
  ts: 8.572607,
  shape: 'irq-thread',
  detector: { comm: 'irq/33-snd_hda_', pid: 159, cpu: 0 },
  late: { comm: 'aplay', pid: 180, role: 'writer' },
  dueTs: 8.570439,
  latenessMs: 2.168,
  parts: [
    { kind: 'task', name: 'cat', pid: 178, prio: 120, cpu: 0, ms: 0.859, share: 0.396 },
    { kind: 'task', name: 'evil\u001b[2J', pid: 179, prio: 120, cpu: 0, ms: 0.84, share: 0.3875 },
    { kind: 'irq', name: 'snd_hda_intel:card0', cpu: 0, ms: 0.469, share: 0.2165 },
  ],
  cls: 'blocked-by-task',
  summary:
    'aplay (pid 180, writer) was kept off CPU 0 by cat (pid 178, prio 120) for 0.86 ms of 2.17 ms',
  complete: false,
  missing: '3 events were lost in the window',
};

test('one breakdown: header, summary, parts, what is missing', () => {
  const lines = breakdownLines(b, { maxParts: 2 });
  assert.equal(
    lines[0],
    'xrun at 8.572607 s: blocked-by-task, late by 2.17 ms (detected in irq-thread by irq/33-snd_hda_ pid 159 on cpu 0; late: aplay pid 180, writer)',
  );
  assert.equal(lines[1], `  ${b.summary}`);
  assert.equal(lines[2], '   39.6 %    0.859 ms  task        cat (pid 178, prio 120, cpu 0)');
  assert.match(lines[3]!, /evil\\x1b\[2J/, 'the escape sequence is inert');
  assert.ok(!lines.join('\n').includes('\u001b'), 'no raw ESC');
  assert.equal(lines[4], '   21.6 %    0.469 ms  1 smaller parts');
  assert.equal(lines.at(-1), '  incomplete: 3 events were lost in the window');
});

test('a part line without pid, and a summary', () => {
  assert.equal(
    partLine(b.parts[2]!),
    ' 21.6 %    0.469 ms  irq         snd_hda_intel:card0 (cpu 0)',
  );
  const lines = summaryLines(summarizeBreakdowns([b, { ...b, complete: true }]));
  assert.equal(lines[0], '2 XRUN breakdowns, 1 complete (50 %), mean lateness 2.17 ms');
  assert.equal(lines[1], '  classes: blocked-by-task 2');
  assert.equal(lines[2], '  detected in: irq-thread 2');
  assert.match(
    lines[4]!,
    /^ {3}39\.6 % +1\.718 ms {2}task {8}cat \(prio 120\) — in 2, largest in 2$/,
  );
  assert.deepEqual(summaryLines(summarizeBreakdowns([])), [
    'no XRUN breakdowns (the flight recorder saw no XRUN)',
  ]);
});

test('the writer’s own sleeps: said plainly per XRUN, in the summary and in the conclusion', () => {
  const stall = (ms: number, askedMs: number): XrunBreakdown => ({
    ...b,
    shape: 'hardirq',
    late: { comm: 'xrunhunt-play', pid: 181, role: 'writer' },
    latenessMs: 10.67,
    parts: [{ kind: 'sleep', name: 'xrunhunt-play', pid: 181, ms: 10.67, share: 1 }],
    cls: 'application-late',
    summary: 'the writer itself slept …',
    complete: true,
    ownSleep: {
      ms,
      wokenBy: 'hrtimer_wakeup',
      wokeAfterHit: true,
      askedMs,
      timerLateMs: ms - askedMs,
    },
  });
  const one = breakdownLines(stall(20.11, 20));
  assert.equal(
    one[3],
    '  own sleep: 20.11 ms (asked for 20.00 ms, its timer expired 0.11 ms after that), woken by hrtimer_wakeup after the XRUN',
  );
  const near = summarizeBreakdowns([stall(20.11, 20), stall(20.05, 20)]);
  assert.deepEqual(
    [near.ownSleeps?.count, near.ownSleeps?.comm, near.ownSleeps?.minMs],
    [2, 'xrunhunt-play', 20.05],
  );
  assert.equal(
    breakdownConclusion(near),
    'the flight recorder explained 2 of 2 XRUNs: the writer itself slept 20.1 ms (xrunhunt-play) before 2 of them; no kernel code delayed it; see "latency breakdown" below',
  );
  assert.ok(
    summaryLines(near).includes(
      '  the writer itself slept 20.1 ms (xrunhunt-play) before 2 of them',
    ),
  );
  // Sleeps that differ by more than 1 ms show their range.
  assert.match(
    breakdownConclusion(summarizeBreakdowns([stall(20.0, 20), stall(26.3, 20)]))!,
    /slept 23\.1 ms \(20\.0–26\.3 ms\) \(xrunhunt-play\)/,
  );
  // Without own sleeps the conclusion names the top blocker as before.
  assert.match(breakdownConclusion(summarizeBreakdowns([b]))!, /was task cat \(prio 120\)/);
});
