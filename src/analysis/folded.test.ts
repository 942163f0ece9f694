import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { createFoldedCounter, foldedFrame, OTHER_STACKS } from './folded.js';
import { writeFoldedAnalysis } from './folded-events.js';

const LOGS = new URL('../../test/fixtures/kernel-logs/', import.meta.url);
const log = (name: string): string => readFileSync(new URL(name, LOGS), 'utf8');

// Checked by hand against the two lab logs: frames read bottom (root) to top, "?" words
// (dummy_pcm_copy_kernel, the second test_unlock) left out, the RIP: function in its place,
// ".cold" stripped, the detector's dump_stack_lvl cut as in every analyzer report; the lockup
// stack ends where the analyzer ends it (at test_lockup_init, as `analyze --json` shows).
const IRQ_PATH =
  'asm_sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt;irq_exit_rcu;handle_softirqs;hrtimer_run_softirq;__hrtimer_run_queues;dummy_hrtimer_callback;snd_pcm_period_elapsed;snd_pcm_period_elapsed_under_stream_lock;snd_pcm_update_hw_ptr0;snd_pcm_update_state;__snd_pcm_xrun';
const EXPECTED = [
  `secondary_startup_64_no_verify;start_kernel;arch_call_rest_init;rest_init;cpu_startup_entry;do_idle;default_idle_call;amd_e400_idle;${IRQ_PATH} 1\n`,
  `test_lockup_init [test_lockup];test_lockup [test_lockup];test_unlock [test_lockup];${IRQ_PATH} 2\n`,
].join('');

test('analyze folded: a lockup, an idle and the lockup again fold to two hand-checked lines', async () => {
  const text =
    log('lab-6.1-x86_64-lockup-test_unlock-irq.txt') +
    log('lab-6.1-x86_64-idle-amd_e400_idle.txt') +
    log('lab-6.1-x86_64-lockup-test_unlock-irq.txt');
  const stdin = new PassThrough();
  stdin.end(text);
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const r = await writeFoldedAnalysis('-', { stdin, stdout }, {});
  assert.equal(r.summary.events, 3);
  assert.equal(out, EXPECTED);
});

test('hostile frame text cannot add a frame, split a line or move the count', () => {
  assert.equal(foldedFrame('a;b'), 'a_b');
  assert.equal(foldedFrame('evil\nfake_root 999'), 'evil?fake_root 999');
  assert.equal(foldedFrame('x\r\u001b[31m\u2028y\u202e'), 'x??[31m?y?');
  assert.equal(foldedFrame('  spaced \t out  '), 'spaced ? out');
  assert.equal(foldedFrame(''), '[unknown]');
  const c = createFoldedCounter();
  c.add(['root;injected', 'leaf\n1000000\nnext_line', '\u0085'], 2);
  c.add([]);
  const lines = c.lines();
  assert.equal(lines.length, 2);
  for (const line of lines) {
    assert.match(line, /^[^;\n\r]+(;[^;\n\r]+)* \d+\n$/, JSON.stringify(line));
  }
  assert.deepEqual(lines, ['[no stack] 1\n', 'root_injected;leaf?1000000?next_line;? 2\n']);
});

test('distinct stacks beyond the bound are counted under one [other stacks] line', () => {
  const c = createFoldedCounter(3);
  for (let i = 0; i < 10; i++) c.add(['root', `f${i}`]);
  c.add(['root', 'f0'], 5);
  assert.equal(c.overflowed, 7);
  assert.deepEqual(c.lines(), [`${OTHER_STACKS} 7\n`, 'root;f0 6\n', 'root;f1 1\n', 'root;f2 1\n']);
});
