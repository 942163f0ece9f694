// Golden tests per boundary rule: the interrupted context in every era (nested interrupts,
// softirq/tasklet re-enable points, cond_resched and lock breaks, old i386 IRQ entry,
// __do_IRQ dispatch, threaded IRQs of the old -rt and voluntary-preempt patches, detection in
// process context). Each stack is built from the frame grammar of its era.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeText } from './analyzer.js';

const X = 'snd_hda_intel 0000:00:1b.0: XRUN: pcmC0D0p:0';
const irq = [
  ' <IRQ>',
  ' dump_stack_lvl+0x4c/0x63',
  ' __snd_pcm_xrun.cold+0x5/0xa [snd_pcm]',
  ' snd_pcm_period_elapsed+0x22/0x40 [snd_pcm]',
  ' azx_interrupt+0x91/0xd0 [snd_hda_codec]',
  ' __handle_irq_event_percpu+0x112/0x2b0',
  ' handle_irq_event+0x35/0x90',
  ' __common_interrupt+0x35/0x90',
  ' common_interrupt+0x35/0x90',
  ' </IRQ>',
  ' <TASK>',
  ' asm_common_interrupt+0x16/0x20',
];
const cases: Record<string, string[]> = {
  nestedUser: [
    X,
    'Call Trace:',
    ...irq,
    'RIP: 0010:irqentry_exit_to_user_mode+0x2a/0x40',
    ' asm_sysvec_apic_timer_interrupt+0x16/0x20',
    'RIP: 0033:0x7f3a1c2b1e7',
    ' </TASK>',
  ],
  softirqExit: [
    X,
    'Call Trace:',
    ' <IRQ>',
    ' dump_stack_lvl+0x4c/0x63',
    ' __snd_pcm_xrun.cold+0x5/0xa [snd_pcm]',
    ' snd_pcm_period_elapsed+0x22/0x40 [snd_pcm]',
    ' azx_interrupt+0x91/0xd0 [snd_hda_codec]',
    ' __handle_irq_event_percpu+0x112/0x2b0',
    ' common_interrupt+0x35/0x90',
    ' asm_common_interrupt+0x16/0x20',
    'RIP: 0010:__do_softirq+0xb4/0x2c8',
    ' __irq_exit_rcu+0x85/0xa0',
    ' sysvec_apic_timer_interrupt+0x35/0x90',
    ' </IRQ>',
    ' <TASK>',
    ' asm_sysvec_apic_timer_interrupt+0x16/0x20',
    'RIP: 0010:_raw_spin_unlock_irqrestore+0x19/0x40',
    ' ext4_finish_bio+0x1e2/0x250',
    ' </TASK>',
  ],
  bhEnable: [
    X,
    'Call Trace:',
    ...irq,
    'RIP: 0010:__do_softirq+0xb4/0x2c8',
    ' do_softirq+0x5a/0x80',
    ' __local_bh_enable_ip+0x4b/0x50',
    ' tcp_recvmsg+0x7e/0x1b0',
    ' </TASK>',
  ],
  condResched: [
    X,
    'Call Trace:',
    ...irq,
    'RIP: 0010:__cond_resched+0x1a/0x50',
    ' shrink_slab+0x20a/0x2a0',
    ' </TASK>',
  ],
  lockBreak: [
    X,
    'Call Trace:',
    ...irq,
    'RIP: 0010:_raw_spin_unlock+0x15/0x30',
    ' __cond_resched_lock+0x3a/0x60',
    ' zap_pte_range+0x2a0/0x7b0',
    ' </TASK>',
  ],
  i386old: [
    'XRUN: pcmC0D0p',
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]',
    ' [<d48c1234>] snd_ice1712_interrupt+0x80/0x120 [snd_ice1712]',
    ' [<c0107a9a>] handle_IRQ_event+0x2a/0x60',
    ' [<c0107e0b>] do_IRQ+0x8b/0x130',
    ' [<c0105fbc>] IRQ0x0b_interrupt+0x18/0x20',
    ' [<c01430c8>] get_user_pages+0x138/0x390',
  ],
  i386callDoIRQ: [
    'XRUN: pcmC0D0p',
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]',
    ' [<c0107a9a>] handle_IRQ_event+0x2a/0x60',
    ' [<c0107e0b>] __do_IRQ+0x8b/0x130',
    ' [<c0107e4b>] do_IRQ+0x8b/0x130',
    ' [<c0105fbc>] call_do_IRQ+0x5/0xd',
    ' [<c01430c8>] do_con_write+0x138/0x390',
  ],
  rtThread: [
    'XRUN: pcmC0D0p',
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]',
    ' [<d48c1234>] snd_emu10k1_interrupt+0x80/0x120 [snd_emu10k1]',
    ' [<c0107a9a>] handle_IRQ_event+0x2a/0x60',
    ' [<c0107b00>] thread_edge_irq+0x5a/0xe0',
    ' [<c0107c00>] do_hardirq+0x4a/0x90',
    ' [<c0107d00>] do_irqd+0x5a/0x80',
    ' [<c0130000>] kthread+0x9a/0xe0',
    ' [<c0101000>] kernel_thread_helper+0x5/0xb',
  ],
  vpThread: [
    'XRUN: pcmC0D0p',
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]',
    ' [<c0107a9a>] handle_IRQ_event+0x2a/0x60',
    ' [<c0107c00>] do_hardirq+0x4a/0x90',
    ' [<c0107d00>] do_irqd+0x5a/0x80',
    ' [<c0130000>] kthread+0x9a/0xe0',
    ' [<c0101000>] kernel_thread_helper+0x5/0xb',
  ],
  ioctl: [
    X,
    'Call Trace:',
    ' dump_stack_lvl+0x4c/0x63',
    ' __snd_pcm_xrun.cold+0x5/0xa [snd_pcm]',
    ' snd_pcm_update_hw_ptr0+0x23a/0x6f0 [snd_pcm]',
    ' snd_pcm_hwsync+0x2a/0x50 [snd_pcm]',
    ' snd_pcm_common_ioctl+0x1a0/0x1100 [snd_pcm]',
    ' snd_pcm_ioctl+0x2e/0x40 [snd_pcm]',
    ' __x64_sys_ioctl+0x8d/0xc0',
    ' do_syscall_64+0x3b/0x90',
    ' entry_SYSCALL_64_after_hwframe+0x63/0xcd',
    'RIP: 0033:0x7f3a1c2b1e7',
  ],
  oss: [
    'XRUN: pcmC0D0p',
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_update_hw_ptr+0x2d7/0x430 [snd_pcm]',
    ' [<d48b8f77>] snd_pcm_lib_write1+0x2d7/0x430 [snd_pcm]',
    ' [<d49b7f77>] snd_pcm_oss_write3+0x2d7/0x430 [snd_pcm_oss]',
    ' [<d49b8f77>] snd_pcm_oss_write+0x2d7/0x430 [snd_pcm_oss]',
    ' [<c0150000>] vfs_write+0x9a/0x160',
    ' [<c0150100>] sys_write+0x41/0x70',
    ' [<c0103000>] syscall_call+0x7/0xb',
  ],
  oldWrite: [
    'XRUN: pcmC0D0p',
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_update_hw_ptr+0x2d7/0x430 [snd_pcm]',
    ' [<d48b8f77>] snd_pcm_lib_write_transfer+0x2d7/0x430 [snd_pcm]',
    ' [<d48b9f77>] snd_pcm_playback_write+0x2d7/0x430 [snd_pcm]',
    ' [<c0150000>] vfs_write+0x9a/0x160',
    ' [<c0150100>] sys_write+0x41/0x70',
    ' [<c0103000>] syscall_call+0x7/0xb',
  ],
};

const expected: Record<string, [string, string | null, string, RegExp]> = {
  nestedUser: ['user', null, 'user', /nested interrupt.*user mode/],
  softirqExit: [
    'kernel',
    'ext4_finish_bio',
    '__do_softirq | _raw_spin_unlock_irqrestore | ext4_finish_bio',
    /interrupted kernel registers/,
  ],
  bhEnable: [
    'kernel',
    'tcp_recvmsg',
    '__do_softirq | __local_bh_enable_ip | tcp_recvmsg',
    /registers/,
  ],
  condResched: ['kernel', 'shrink_slab', '__cond_resched | shrink_slab', /registers/],
  lockBreak: [
    'kernel',
    'zap_pte_range',
    '_raw_spin_unlock | __cond_resched_lock | zap_pte_range',
    /registers/,
  ],
  i386old: ['kernel', 'get_user_pages', 'get_user_pages', /after the IRQ boundary/],
  i386callDoIRQ: ['kernel', 'do_con_write', 'do_con_write', /after the IRQ boundary/],
  // Detected by the detector's own thread or call: never an offender (issue 17).
  rtThread: ['detector-only', null, 'detector-only', /IRQ thread.*thread_edge_irq/],
  vpThread: ['detector-only', null, 'detector-only', /IRQ thread.*do_hardirq/],
  ioctl: ['detector-only', null, 'detector-only', /process context.*snd_pcm_hwsync/],
  oss: ['detector-only', null, 'detector-only', /process context.*snd_pcm_lib_write1/],
  oldWrite: ['detector-only', null, 'detector-only', /process context.*snd_pcm_lib_write_transfer/],
};

// Where each shape was detected: hard IRQ, a softirq on interrupt exit, an IRQ thread, or a
// task's own system call.
const contexts: Record<string, string> = {
  nestedUser: 'hardirq',
  softirqExit: 'hardirq', // the HDA interrupt came while __do_softirq ran: detected in the hard IRQ
  condResched: 'hardirq',
  i386old: 'hardirq',
  i386callDoIRQ: 'hardirq',
  rtThread: 'irq-thread',
  vpThread: 'irq-thread',
  ioctl: 'process',
  oss: 'process',
  oldWrite: 'process',
};

for (const [name, lines] of Object.entries(cases)) {
  test(`boundary rule: ${name}`, () => {
    const r = analyzeText(lines.join('\n'));
    assert.equal(r.events.length, 1);
    const o = r.events[0]!.offender;
    const [cls, fn, sig, reason] = expected[name]!;
    assert.deepEqual([o.class, o.function, o.signature], [cls, fn, sig]);
    assert.match(o.reason ?? '', reason);
    if (contexts[name] !== undefined)
      assert.equal(r.events[0]!.detection?.context, contexts[name], 'detection context');
  });
}

test('IRQ-entry frames alone after the boundary are not a kernel thread: none, said so', () => {
  const r = analyzeText(
    [
      X,
      'Call Trace:',
      ...irq,
      'RIP: 0010:irqentry_exit+0x2a/0x40',
      ' asm_sysvec_apic_timer_interrupt+0x16/0x20',
    ].join('\n'),
  );
  const o = r.events[0]!.offender;
  // Interrupt-exit code and nothing under it: the stack cannot tell, so none with the reason.
  assert.deepEqual([o.class, o.function], ['none', null]);
  assert.match(o.reason ?? '', /no usable frame after the IRQ boundary/);
  assert.ok(o.explanation!.skipped.some((s) => s.role === 'IRQ entry/exit'));
});

test('the explanation names a softirq re-enable point as such', () => {
  const x = analyzeText(cases['bhEnable']!.join('\n')).events[0]!.offender.explanation!;
  assert.deepEqual(
    x.skipped.filter((s) => s.function === '__do_softirq').map((s) => s.role),
    ['softirq/tasklet re-enable point'],
  );
});
