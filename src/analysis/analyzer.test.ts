import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeText, createLogAnalyzer } from './analyzer.js';
import { rankOffenders } from './rank.js';
import type { XrunEvent } from './types.js';

const X = 'snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0';
const IRQ_CHAIN = [
  ' <IRQ>',
  ' dump_stack_lvl+0x4c/0x63',
  ' __snd_pcm_xrun.cold+0x5/0xa',
  ' snd_pcm_update_hw_ptr0+0x23a/0x6f0',
  ' snd_pcm_period_elapsed+0x22/0x40',
  ' dummy_hrtimer_callback+0x91/0xd0',
  ' __hrtimer_run_queues+0x112/0x2b0',
  ' hrtimer_interrupt+0x10b/0x230',
  ' __sysvec_apic_timer_interrupt+0x55/0x100',
  ' sysvec_apic_timer_interrupt+0x35/0x90',
  ' </IRQ>',
  ' <TASK>',
  ' asm_sysvec_apic_timer_interrupt+0x16/0x20',
];
const dump = (rip: string, callers: string[]): string[] => [
  X,
  'CPU: 0 PID: 1 Comm: x Not tainted 6.1.0 #1',
  'Call Trace:',
  ...IRQ_CHAIN,
  `RIP: 0010:${rip}`,
  'RSP: 0018:ffffb5a3c05b7c58 EFLAGS: 00000246',
  ...callers.map((c) => ` ${c}`),
  ' </TASK>',
];

test('a header with no stack is still an event (class none)', () => {
  const r = analyzeText('XRUN: pcmC0D0p\nsomething else\n');
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0]!.offender.class, 'none');
  assert.equal(r.events[0]!.line, 1);
});

test('a headerless stack after a finished record is never attached to it', () => {
  const lines = [
    ...dump('_raw_spin_unlock_irq+0x15/0x30', ['__filemap_add_folio+0x225/0x410']),
    'snd_pcm_update_hw_ptr0: 12 callbacks suppressed',
    'CPU: 0 PID: 1 Comm: x Not tainted 6.1.0 #1',
    'Call Trace:',
    ...IRQ_CHAIN,
    'RIP: 0010:jbd2_journal_commit_transaction+0x1e2/0x1b90',
  ];
  const r = analyzeText(lines.join('\n'));
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0]!.offender.function, '__filemap_add_folio');
  // Without the "callbacks suppressed" line the second CPU: line still ends the first record.
  const r2 = analyzeText(lines.filter((l) => !l.includes('suppressed')).join('\n'));
  assert.equal(r2.events.length, 1);
  assert.equal(r2.events[0]!.offender.function, '__filemap_add_folio');
});

test('non-ALSA reports with snd_pcm frames are not events', () => {
  const lines = [
    '------------[ cut here ]------------',
    'WARNING: CPU: 0 PID: 12 at sound/core/pcm_lib.c:441 snd_pcm_update_hw_ptr0+0x5d0/0x6f0',
    'CPU: 0 PID: 12 Comm: ksoftirqd/0 Not tainted 6.1.192 #1',
    'Call Trace:',
    ...IRQ_CHAIN,
    'RIP: 0010:_raw_spin_unlock_irq+0x15/0x30',
  ];
  assert.equal(analyzeText(lines.join('\n')).events.length, 0);
});

test('an XRUN header ends at the next foreign header even when frames follow', () => {
  const lines = [
    X,
    'INFO: task ip:6024 blocked for more than 120 seconds.',
    'Call Trace:',
    ' __schedule+0x2eb/0x8d0',
    ' schedule+0x4f/0xc0',
  ];
  const r = analyzeText(lines.join('\n'));
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0]!.frames.length, 0);
});

test('caller ids: interleaved lines of another task do not break or join records', () => {
  const d = dump('_raw_spin_unlock_irq+0x15/0x30', [
    '__filemap_add_folio+0x225/0x410',
    'filemap_add_folio+0x38/0xa0',
  ]);
  const lines = d.map((l, i) => `[  10.${String(100000 + i)}][    C1] ${l}`);
  lines.splice(
    8,
    0,
    '[  10.100008][  T733] aplay: unrelated message',
    '[  10.100009][  T733] XRUN: pcmC1D0c',
  );
  const r = analyzeText(lines.join('\n'));
  assert.equal(r.events.length, 2);
  const byPcm = new Map(r.events.map((e) => [e.pcm, e]));
  assert.equal(byPcm.get('pcmC0D0p:0')?.offender.function, '__filemap_add_folio');
  assert.equal(byPcm.get('pcmC1D0c')?.offender.class, 'none');
});

test('mixture of formats in one input, each header numbered by its input line', () => {
  const text = [
    '6,100,5000000,-;snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0',
    ' SUBSYSTEM=platform',
    ' DEVICE=+platform:snd_dummy.0',
    '4,101,5000001,-;CPU: 0 PID: 0 Comm: swapper/0 Not tainted 6.1.0 #1',
    '4,102,5000002,-;Call Trace:',
    '4,103,5000003,-; <IRQ>',
    '4,104,5000004,-; sysvec_apic_timer_interrupt+0x35/0x90',
    '4,105,5000005,-; </IRQ>',
    '4,106,5000006,-; <TASK>',
    '4,107,5000007,-; asm_sysvec_apic_timer_interrupt+0x16/0x20',
    '4,108,5000008,-;RIP: 0010:intel_idle+0x47/0x90',
    '4,109,5000009,-; cpuidle_enter_state+0x89/0x450',
    'Jan  4 16:20:11 hummus kernel: ALSA sound/core/pcm_lib.c:155: Unexpected hw_pointer value (stream = 0, delta: -4095, max jitter = 8192): wrong interrupt acknowledge?',
  ].join('\n');
  const r = analyzeText(text);
  assert.deepEqual(
    r.events.map((e) => [e.line, e.kind, e.offender.class, e.time]),
    [
      [1, 'xrun', 'idle', 5],
      [13, 'hw_ptr_error', 'none', undefined],
    ],
  );
});

test('syzkaller-style stacked RIP lines: the non-inline one names the function', () => {
  const lines = [
    X,
    'Call Trace:',
    ' <IRQ>',
    ' sysvec_apic_timer_interrupt+0x93/0xc0 arch/x86/kernel/apic/apic.c:1100',
    ' </IRQ>',
    ' asm_sysvec_apic_timer_interrupt+0x12/0x20 arch/x86/include/asm/idtentry.h:632',
    'RIP: 0010:native_save_fl arch/x86/include/asm/irqflags.h:29 [inline]',
    'RIP: 0010:arch_local_save_flags arch/x86/include/asm/irqflags.h:70 [inline]',
    'RIP: 0010:ext4_do_update_inode+0x1c9/0x250 fs/ext4/inode.c:516',
    ' ext4_mark_iloc_dirty+0x361/0x500 fs/ext4/inode.c:647',
  ];
  const r = analyzeText(lines.join('\n'));
  assert.equal(r.events[0]!.offender.function, 'ext4_do_update_inode');
});

test('unreliable frames: used only when nothing reliable follows; offset==size never', () => {
  const r = analyzeText(
    dump('_raw_spin_unlock_irqrestore+0x19/0x40', [
      '? dummy_pcm_copy_kernel+0x10/0x10',
      '? ext4_bio_write_page+0x1b0/0x590',
    ]).join('\n'),
  );
  assert.equal(r.events[0]!.offender.function, 'ext4_bio_write_page');
  const r2 = analyzeText(
    dump('_raw_spin_unlock_irqrestore+0x19/0x40', ['? dummy_pcm_copy_kernel+0x10/0x10']).join('\n'),
  );
  assert.equal(r2.events[0]!.offender.function, '_raw_spin_unlock_irqrestore');
});

test('bounded memory: frames dropped beyond the limit, offenders still counted', () => {
  const a = createLogAnalyzer({ maxEventsWithFrames: 3 });
  for (let i = 0; i < 10; i++)
    for (const l of dump('test_unlock+0x5d/0x250 [test_lockup]', [
      'test_lockup+0x18d/0x230 [test_lockup]',
    ]))
      a.push(l);
  const r = a.finish();
  assert.equal(r.events.length, 10);
  assert.equal(r.events[2]!.frames.length > 0, true);
  assert.equal(r.events[3]!.frames.length, 0);
  assert.equal(r.offenders[0]!.count, 10);
  assert.ok(r.warnings.some((w) => w.includes('without their frames')));
});

test('overlong lines are truncated with a warning, not buffered', () => {
  const r = analyzeText(`${'x'.repeat(200000)}\nXRUN: pcmC0D0p\n`, { maxLineLength: 1000 });
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0]!.line, 2);
  assert.ok(r.warnings.some((w) => w.includes('truncated')));
});

test('skipLines keeps line numbers right for the IO fast path', () => {
  const a = createLogAnalyzer();
  a.push('random: crng init done');
  assert.equal(a.idle(), true);
  a.skipLines(41);
  a.push('XRUN: pcmC0D0p');
  assert.equal(a.idle(), false);
  assert.equal(a.finish().events[0]!.line, 43);
});

test('rankOffenders: count, share of all events, distinct signatures, deterministic order', () => {
  const ev = (
    fn: string | null,
    sig: string,
    cls: XrunEvent['offender']['class'],
    line: number,
  ): XrunEvent => ({
    kind: 'xrun',
    pcm: null,
    line,
    header: 'XRUN: pcmC0D0p',
    frames: [],
    offender: { class: cls, function: fn, module: null, signature: sig },
  });
  const evs = [
    ev('b', 'b', 'kernel', 1),
    ev('a', '_raw_spin_unlock_irq | a', 'kernel', 2),
    ev('a', 'a', 'kernel', 3),
    ev('b', 'b', 'kernel', 4),
    ev('cpu_idle', 'idle', 'idle', 5),
    ev(null, 'user', 'user', 6),
  ];
  const r = rankOffenders(evs);
  assert.deepEqual(
    r.map((o) => [o.function, o.count, o.share, o.signatures, o.lines]),
    [
      ['a', 2, 2 / 6, 2, [2, 3]],
      ['b', 2, 2 / 6, 1, [1, 4]],
    ],
  );
  assert.deepEqual(
    rankOffenders([...evs].reverse()).map((o) => o.function),
    ['a', 'b'],
  );
});

test('i386 2.6.2x: a run of printer frames does not split the dump', () => {
  const lines = [
    'ALSA sound/core/pcm_lib.c:157: XRUN: pcmC0D0p:0',
    'Pid: 0, comm: swapper Not tainted 2.6.24 #1',
    ' [<c0105f3e>] show_trace_log_lvl+0x1a/0x2f',
    ' [<c0105f6a>] show_trace+0x12/0x14',
    ' [<c0105fe3>] dump_stack+0x16/0x18',
    ' [<f8a6e47c>] snd_pcm_period_elapsed+0x13c/0x2e0 [snd_pcm]',
    ' [<f8b0a1c3>] snd_intel8x0_interrupt+0x1a3/0x220 [snd_intel8x0]',
    ' [<c0143a2e>] handle_IRQ_event+0x1a/0x3f',
    ' [<c0144b5d>] handle_fasteoi_irq+0x6d/0xa6',
    ' [<c0107b1c>] do_IRQ+0x7c/0x92',
    ' [<c0105a1e>] common_interrupt+0x2e/0x34',
    ' [<c0170c1d>] shrink_page_list+0x2a/0x3b0',
    ' [<c0171a0e>] shrink_inactive_list+0x1a3/0x3b0',
    ' [<c0172123>] kswapd+0x2d3/0x460',
    ' =======================',
  ];
  const r = analyzeText(lines.join('\n'));
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0]!.offender.function, 'shrink_page_list');
  assert.ok(!r.events[0]!.frames.some((f) => f.function === 'show_trace'), 'printers dropped');
});

test('ARM32 XRUN injected through /proc: process context, detector-only, the task named', () => {
  const lines = [
    'asoc-simple-card rk809-sound: XRUN: pcmC0D0p:0',
    'CPU: 2 PID: 411 Comm: sh Not tainted 5.10.160 #1',
    'Hardware name: Generic DT based system',
    '[<b0110e4c>] (unwind_backtrace) from [<b010b6c4>] (show_stack+0x10/0x14)',
    '[<b010b6c4>] (show_stack) from [<b0850b58>] (dump_stack+0x98/0xac)',
    '[<b0850b58>] (dump_stack) from [<b06a39c4>] (__snd_pcm_xrun+0xa0/0x114)',
    '[<b06a39c4>] (__snd_pcm_xrun) from [<b06a3a6c>] (snd_pcm_stop_xrun+0x34/0x48)',
    '[<b06a3a6c>] (snd_pcm_stop_xrun) from [<b0696e10>] (snd_info_text_entry_release+0x50/0x84)',
    '[<b0696e10>] (snd_info_text_entry_release) from [<b0291a8c>] (__fput+0x8c/0x230)',
    '[<b0291a8c>] (__fput) from [<b0158b70>] (task_work_run+0x98/0xcc)',
    '[<b0158b70>] (task_work_run) from [<b010a9e4>] (do_work_pending+0x4f8/0x5c0)',
    '[<b010a9e4>] (do_work_pending) from [<b0100088>] (slow_work_pending+0xc/0x20)',
  ];
  const r = analyzeText(lines.join('\n'));
  // The injector's own write/close: its stack is the detector's, never an offender.
  assert.equal(r.events[0]!.offender.class, 'detector-only');
  assert.equal(r.events[0]!.offender.function, null);
  assert.deepEqual(r.events[0]!.detection, {
    context: 'process',
    via: 'snd_info_text_entry_release',
    evidence: 'stack',
    task: { comm: 'sh', pid: 411 },
  });
  // Each function appears once although ARM prints it as callee and caller.
  assert.equal(r.events[0]!.frames.filter((f) => f.function === '__fput').length, 1);
});

test('arm64 6.13+ (C)/(P) tags: the pt_regs pc frame after el1h_64_irq is the offender', () => {
  const lines = [
    'snd_hda_intel 0000:00:1f.3: XRUN: pcmC0D0p:0',
    'Call trace:',
    ' show_stack+0x18/0x30 (C)',
    ' dump_stack_lvl+0x60/0x80',
    ' __snd_pcm_xrun+0x5c/0x11c [snd_pcm]',
    ' snd_pcm_period_elapsed+0x2c/0x48 [snd_pcm]',
    ' azx_interrupt+0xb4/0x1b0 [snd_hda_codec]',
    ' __handle_irq_event_percpu+0x74/0x140',
    ' gic_handle_irq+0x9c/0xb8',
    ' call_on_irq_stack+0x30/0x48',
    ' do_interrupt_handler+0x80/0x84',
    ' el1_interrupt+0x34/0x68',
    ' el1h_64_irq_handler+0x18/0x24',
    ' el1h_64_irq+0x6c/0x70',
    ' drop_buffers.constprop.0+0x34/0x120 (P)',
    ' try_to_free_buffers+0xbc/0x12c (L)',
    ' filemap_release_folio+0x98/0xb8',
  ];
  const r = analyzeText(lines.join('\n'));
  assert.equal(r.events[0]!.offender.class, 'kernel');
  assert.equal(r.events[0]!.offender.function, 'drop_buffers');
});

test('grammar-built era samples: 2.6.1x x86_64 F3 with <EOI>, ARM 2.6 idle and kernel', () => {
  const text = `ALSA /usr/src/alsa/alsa-kernel/core/pcm_lib.c:169: XRUN: pcmC0D0p
Call Trace: <IRQ> <ffffffff8026929b>{show_trace+34} <ffffffff802692b7>{dump_stack+18}
       <ffffffff8817d8e4>{:snd_pcm:snd_pcm_period_elapsed+692} <ffffffff881a7b31>{:snd_intel8x0:snd_intel8x0_interrupt+289}
       <ffffffff80210b3e>{handle_IRQ_event+41} <ffffffff802b0c2f>{__do_IRQ+156}
       <ffffffff8026a2a7>{do_IRQ+231} <ffffffff8025e0f8>{ret_from_intr+0}  <EOI> <ffffffff8020d9a4>{shrink_list+60}
       <ffffffff8020ee11>{shrink_zone+210}
ALSA sound/core/pcm_lib.c:171: XRUN: pcmC0D0p:0
[<c002d8b0>] (unwind_backtrace+0x0/0xe4) from [<bf0a4f2c>] (snd_pcm_update_hw_ptr_post+0xac/0x208 [snd_pcm])
[<bf0a4f2c>] (snd_pcm_update_hw_ptr_post+0xac/0x208 [snd_pcm]) from [<bf0a5200>] (snd_pcm_period_elapsed+0x8c/0xd4 [snd_pcm])
[<bf0a5200>] (snd_pcm_period_elapsed+0x8c/0xd4 [snd_pcm]) from [<bf0c11d8>] (omap_pcm_dma_irq+0x38/0x44 [snd_soc_omap])
[<bf0c11d8>] (omap_pcm_dma_irq+0x38/0x44 [snd_soc_omap]) from [<c0040d88>] (omap2_dma_irq_handler+0x1b8/0x240)
[<c0040d88>] (omap2_dma_irq_handler+0x1b8/0x240) from [<c0072b5c>] (handle_IRQ_event+0x2c/0xf0)
[<c0072b5c>] (handle_IRQ_event+0x2c/0xf0) from [<c0074ec0>] (handle_level_irq+0xb0/0x138)
[<c0074ec0>] (handle_level_irq+0xb0/0x138) from [<c00283d4>] (asm_do_IRQ+0x54/0x8c)
[<c00283d4>] (asm_do_IRQ+0x54/0x8c) from [<c00284e4>] (__irq_svc+0x44/0xcc)
Exception stack(0xc03a9f30 to 0xc03a9f78)
9f20:                                     00000000 0005317f 0005217f 60000013
9f40: c03a8000 c03ad87c c02ddc44 c03ad874 c00285b0 411fc083 80000000 00000000
[<c00284e4>] (__irq_svc+0x44/0xcc) from [<c0029a3c>] (default_idle+0x2c/0x34)
[<c0029a3c>] (default_idle+0x2c/0x34) from [<c002a0ac>] (cpu_idle+0x6c/0xc8)
[<c002a0ac>] (cpu_idle+0x6c/0xc8) from [<c0008b68>] (start_kernel+0x26c/0x2cc)
ALSA sound/core/pcm_lib.c:171: XRUN: pcmC0D0c:0
[<c002d8b0>] (unwind_backtrace+0x0/0xe4) from [<bf0a4f2c>] (snd_pcm_update_hw_ptr_post+0xac/0x208 [snd_pcm])
[<c00283d4>] (asm_do_IRQ+0x54/0x8c) from [<c00284e4>] (__irq_svc+0x44/0xcc)
[<c00284e4>] (__irq_svc+0x44/0xcc) from [<c00ba7e0>] (__copy_to_user_memcpy+0x70/0x110)
[<c00ba7e0>] (__copy_to_user_memcpy+0x70/0x110) from [<c00bbab0>] (pipe_read+0x150/0x3a0)
`;
  const r = analyzeText(text);
  assert.deepEqual(
    r.events.map((e) => [e.line, e.offender.class, e.offender.function]),
    [
      [1, 'kernel', 'shrink_list'],
      [7, 'idle', 'default_idle'],
      [22, 'kernel', '__copy_to_user_memcpy'],
    ],
  );
});

test('softirq run at local_bh_enable inside a syscall: the bottom RIP: 0033 is not the interrupted context', () => {
  const lines = [
    X,
    'CPU: 0 PID: 1 Comm: x Not tainted 6.1.0 #1',
    'Call Trace:',
    ' <TASK>',
    ' dump_stack_lvl+0x4c/0x63',
    ' __snd_pcm_xrun.cold+0x5/0xa',
    ' snd_pcm_period_elapsed+0x22/0x40',
    ' dummy_hrtimer_callback+0x91/0xd0',
    ' __hrtimer_run_queues+0x112/0x2b0',
    ' hrtimer_run_softirq+0x9c/0xc0',
    ' __do_softirq+0xc5/0x2c8',
    ' do_softirq+0x73/0x90',
    ' __local_bh_enable_ip+0x68/0x70',
    ' tcp_sendmsg+0x31/0x50',
    ' sock_sendmsg+0x5e/0x70',
    ' do_syscall_64+0x34/0x90',
    ' entry_SYSCALL_64_after_hwframe+0x6e/0xd8',
    'RIP: 0033:0x7f9d3b4f1aff',
    ' </TASK>',
  ];
  const e = analyzeText(lines.join('\n')).events[0]!;
  assert.equal(e.offender.class, 'kernel');
  assert.equal(e.offender.signature, '__local_bh_enable_ip | tcp_sendmsg');
});

test('a busy-wait delay names its caller (test_lockup cooldown: RIP delay_tsc ← test_lockup)', () => {
  const r = analyzeText(
    dump('delay_tsc+0x3a/0xa0', [
      'test_lockup+0xae/0x3f0 [test_lockup]',
      '? test_lockup_init+0x4cb/0x1000 [test_lockup]',
      'do_one_initcall+0x56/0x220',
    ]).join('\n'),
  );
  assert.equal(r.events.length, 1);
  assert.deepEqual(
    { ...r.events[0]!.offender, reason: undefined, explanation: undefined },
    {
      class: 'kernel',
      function: 'test_lockup',
      module: 'test_lockup',
      signature: 'delay_tsc | test_lockup',
      reason: undefined,
      explanation: undefined,
    },
  );
});

test('signatures name functions only, so a module and a built-in build group together', () => {
  const asModule = analyzeText(dump('test_unlock+0x5d/0x250 [test_lockup]', []).join('\n'));
  const builtIn = analyzeText(dump('test_unlock+0x5d/0x250', []).join('\n'));
  assert.equal(asModule.events[0]!.offender.signature, 'test_unlock');
  assert.equal(builtIn.events[0]!.offender.signature, 'test_unlock');
  assert.equal(asModule.events[0]!.offender.module, 'test_lockup');
});

test('a period interrupt that hits another interrupt on its way out looks through to what that one broke into', () => {
  // Shape seen in the lab under preempt=full: RIP irqentry_exit, then the reschedule IPI's
  // entry frame and ITS registers (the instruction it interrupted), then the real callers.
  const lines = [
    X,
    'CPU: 0 PID: 301 Comm: insmod Tainted: G           O       6.1.192 #1',
    'Call Trace:',
    ...IRQ_CHAIN,
    'RIP: 0010:irqentry_exit+0x33/0x40',
    'RSP: 0018:ffff9dd640053dd0 EFLAGS: 00000286',
    ' asm_sysvec_reschedule_ipi+0x16/0x20',
    'RIP: 0010:_raw_spin_unlock_irqrestore+0x1d/0x30',
    'RSP: 0018:ffff9dd640053e40 EFLAGS: 00000246',
    ' ? _raw_spin_unlock_irqrestore+0x15/0x30',
    ' test_lockup+0x18d/0x3f0 [test_lockup]',
    ' ? test_lockup_init+0x4cb/0x1000 [test_lockup]',
    ' </TASK>',
  ];
  const o = analyzeText(lines.join('\n')).events[0]!.offender;
  assert.equal(o.class, 'kernel');
  assert.equal(o.function, 'test_lockup');
  assert.equal(o.signature, '_raw_spin_unlock_irqrestore | test_lockup');
});
