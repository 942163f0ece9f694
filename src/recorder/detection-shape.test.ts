// The detection shape of every lab capture (flags and comm of the xrun probe hit) and, for
// kernels without the flags column, from the stack alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectionShape, flagContext, irqOfThread, shapeFromStack } from './detection-shape.js';
import type { XrunHit } from './breakdown-types.js';

const hit = (comm: string, flags: string, stack?: string[]): XrunHit => ({
  cpu: 0,
  ts: 1,
  comm,
  pid: 1,
  flags,
  ...(stack ? { stack } : {}),
});

test('the shapes of the lab captures', () => {
  // Debian 6.1 threadirqs: the IRQ thread.
  assert.equal(detectionShape(hit('irq/33-snd_hda_', 'D..1.')), 'irq-thread');
  // Debian 6.1 without threadirqs: hard IRQ, interrupting insmod.
  assert.equal(detectionShape(hit('insmod', 'dNh2.')), 'hardirq');
  // snd-dummy: its hrtimer softirq in ksoftirqd.
  assert.equal(detectionShape(hit('ksoftirqd/1', 'd.s1.')), 'softirq');
  // PREEMPT_RT 6.1 (7-char flags): aplay's own write ioctl.
  assert.equal(detectionShape(hit('aplay', '.....11')), 'process');
  assert.equal(detectionShape(hit('ktimers/0', 'd...2..')), 'softirq');
  assert.equal(detectionShape(hit('dd', 'd..h1..')), 'hardirq');
});

test('flagContext reads the third column, the fourth on PREEMPT_RT’s 7-char flags', () => {
  assert.equal(flagContext('d.h1'), 'hardirq');
  assert.equal(flagContext('dNH2.'), 'hardirq');
  assert.equal(flagContext('..s..'), 'softirq');
  assert.equal(flagContext('dn.h1..'), 'hardirq');
  assert.equal(flagContext('...s.12'), 'softirq');
  assert.equal(flagContext('d...2..'), 'task');
  assert.equal(flagContext('d.Z1.'), 'nmi');
  assert.equal(flagContext(''), undefined);
});

test('without flags, the stack tells (innermost first)', () => {
  const threaded = [
    '__snd_pcm_xrun',
    'snd_pcm_period_elapsed',
    'azx_interrupt',
    'irq_forced_thread_fn',
    'irq_thread',
    'kthread',
  ];
  assert.equal(detectionShape(hit('x', '', threaded)), 'irq-thread');
  const hard = [
    '__snd_pcm_xrun+0x5/0xa [snd_pcm]',
    'azx_interrupt+0x91/0xd0 [snd_hda_codec]',
    '__handle_irq_event_percpu+0x112/0x2b0',
    'handle_irq_event',
    'common_interrupt',
    'asm_common_interrupt',
    'snd_pcm_lib_write',
  ];
  assert.equal(shapeFromStack(hard), 'hardirq', 'a hard IRQ on top of a syscall is the hard IRQ');
  const ioctl = [
    '__snd_pcm_xrun',
    'snd_pcm_update_state',
    'snd_pcm_update_hw_ptr0',
    'snd_pcm_hwsync',
    'snd_pcm_common_ioctl',
    'snd_pcm_ioctl',
    '__x64_sys_ioctl',
  ];
  assert.equal(shapeFromStack(ioctl), 'process');
  const soft = [
    '__snd_pcm_xrun',
    'dummy_hrtimer_callback',
    '__hrtimer_run_queues',
    'hrtimer_run_softirq',
    'handle_softirqs',
    'run_ksoftirqd',
  ];
  assert.equal(shapeFromStack(soft), 'softirq');
  assert.equal(shapeFromStack(['foo', 'bar']), undefined);
  assert.equal(detectionShape(hit('x', '', ['foo'])), 'process', 'nothing else known: a task');
});

test('irqOfThread', () => {
  assert.equal(irqOfThread('irq/33-snd_hda_'), 33);
  assert.equal(irqOfThread('aplay'), undefined);
});
