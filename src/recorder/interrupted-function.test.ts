// The interrupted code at a late period interrupt, by the stack analysis's own rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRules } from '../analysis/rules.js';
import { ftraceStackItems, interruptedCode } from './interrupted-function.js';

const irqEntry = [
  'trace_event_raw_event_irq_handler_entry',
  '__handle_irq_event_percpu',
  'handle_irq_event',
  'handle_edge_irq',
  '__common_interrupt',
  'common_interrupt',
  'asm_common_interrupt',
];

test('the lab injector behind a nested timer interrupt (real 6.1 stack)', () => {
  const c = interruptedCode(
    [
      ...irqEntry,
      'preempt_schedule_irq',
      'asm_sysvec_apic_timer_interrupt',
      'xrunhunt_inject_unlock',
      'xrunhunt_inject_init',
      'do_one_initcall',
    ],
    loadRules(),
  );
  assert.equal(c.function, 'xrunhunt_inject_unlock');
  assert.deepEqual(c.frames.slice(0, 2), ['xrunhunt_inject_unlock', 'xrunhunt_inject_init']);
});

test('frames with offsets and modules keep the module', () => {
  const c = interruptedCode(
    [
      ...irqEntry,
      'test_unlock+0x12/0x40 [test_lockup]',
      'test_lockup_init+0x1c/0x90 [test_lockup]',
    ],
    loadRules(),
  );
  assert.equal(c.function, 'test_unlock');
  assert.equal(c.module, 'test_lockup');
  assert.equal(c.frames[0], 'test_unlock [test_lockup]');
});

test('idle and empty stacks', () => {
  const idle = interruptedCode(
    [...irqEntry, 'default_idle', 'default_idle_call', 'do_idle', 'cpu_startup_entry'],
    loadRules(),
  );
  assert.equal(idle.cls, 'idle');
  assert.equal(interruptedCode([], loadRules()).function, null);
  assert.equal(ftraceStackItems(['not a frame !!']).length, 0);
});
