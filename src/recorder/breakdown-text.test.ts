// The printed lines of one breakdown and of a summary; names from the traced machine are escaped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdownLines, partLine, summaryLines } from './breakdown-text.js';
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
