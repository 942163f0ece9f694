// Real XRUN dumps from PipeWire in the lab guest (test/fixtures/pipewire/README.md): the four
// detection contexts timer-scheduled playback produces, each read with its frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeText } from './analyzer.js';

const text = readFileSync(
  new URL('../../test/fixtures/pipewire/lab-timer-xrun-contexts.dmesg.txt', import.meta.url),
  'utf8',
);

test('PipeWire timer-mode dumps: period interrupt, PipeWire ioctl, Stopper over migration/N, a /proc status read', () => {
  const { events } = analyzeText(text);
  assert.equal(events.length, 4);
  const [irq, ioctl, stopper, status] = events.map((e) => e.offender);
  assert.equal(irq!.class, 'kernel');
  // PipeWire's own DELAY ioctl noticed it: the stack is the victim's call (issue 17).
  assert.deepEqual([ioctl!.class, ioctl!.function], ['detector-only', null]);
  assert.deepEqual(events[1]!.detection, {
    context: 'process',
    via: 'snd_pcm_delay',
    evidence: 'stack',
    task: { comm: 'pipewire', pid: 122 },
  });
  // The period interrupt's dump names the task it interrupted (watch's node), in a softirq
  // run on interrupt exit.
  assert.equal(events[0]!.detection?.context, 'softirq');
  assert.deepEqual(events[0]!.detection?.task, { comm: 'node', pid: 180 });
  // dump_stack_print_info's `Stopper:` line (stop_machine over migration/0) is part of the
  // preamble, not the end of the stack.
  assert.deepEqual([stopper!.class, stopper!.function], ['kernel', 'active_load_balance_cpu_stop']);
  assert.ok(events[2]!.frames.length > 10);
  assert.deepEqual([status!.class, status!.function], ['detector-only', null]);
  assert.equal(events[3]!.detection?.via, 'snd_pcm_status64');
});
