// PREEMPT_RT's ftrace lines (Debian's -rt kernel in the lab): the flags column carries the lazy
// preemption counts (`...s.14`, 7 characters, against `d.s1.` on other kernels), and snd-dummy's
// hrtimer runs in the ktimers thread, so a stack has no interrupted frame: the XRUN is detected
// in softirq-thread context and its stack names only the detector (class detector-only). The sample is a stack
// read from the lab (`--kernel debian-rt`, aplay 64/128, 2026-12-01) with the offsets the
// session's instance prints; see docs/lab.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeText } from '../analysis/analyzer.js';

const sample = readFileSync(
  new URL('../../test/fixtures/debian-kernel/rt-kprobe-ktimers-stack.txt', import.meta.url),
  'utf8',
);

test('PREEMPT_RT kprobe stack: the 7-character flags column is read, the event is the ktimers thread', () => {
  const r = analyzeText(sample);
  assert.equal(r.events.length, 1);
  const e = r.events[0]!;
  assert.equal(e.offender?.class, 'detector-only');
  assert.equal(e.offender?.function, null);
  assert.equal(e.detection?.context, 'softirq');
  assert.match(e.detection?.task?.comm ?? '', /^ktimers\//);
});
