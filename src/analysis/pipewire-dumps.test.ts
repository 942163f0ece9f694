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
  assert.deepEqual([ioctl!.class, ioctl!.function], ['none', 'snd_pcm_delay']);
  // dump_stack_print_info's `Stopper:` line (stop_machine over migration/0) is part of the
  // preamble, not the end of the stack.
  assert.deepEqual([stopper!.class, stopper!.function], ['kernel', 'active_load_balance_cpu_stop']);
  assert.ok(events[2]!.frames.length > 10);
  assert.deepEqual([status!.class, status!.function], ['none', 'snd_pcm_status64']);
});
