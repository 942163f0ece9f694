import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyStackLine, type StackLine } from './stack-line.js';
import { parseLogLine } from './line-anatomy.js';
import { normaliseFunction } from './frame.js';

function frames(line: StackLine): string[] {
  assert.equal(line.kind, 'frames', `expected frames, got ${line.kind}`);
  if (line.kind !== 'frames') return [];
  return line.tokens.map((t) =>
    t.type === 'marker'
      ? `<${t.marker}>`
      : `${t.frame.reliable ? '' : '?'}${t.frame.function}${t.frame.module ? `[${t.frame.module}]` : ''}${t.frame.offset !== undefined ? `+${t.frame.offset}` : ''}`,
  );
}

test('normalisation strips compiler clone suffixes only', () => {
  assert.equal(normaliseFunction('__snd_pcm_xrun.cold'), '__snd_pcm_xrun');
  assert.equal(normaliseFunction('dump_backtrace.part.7'), 'dump_backtrace');
  assert.equal(normaliseFunction('drop_buffers.constprop.0'), 'drop_buffers');
  assert.equal(normaliseFunction('foo.isra.0.cold'), 'foo');
  assert.equal(normaliseFunction('bar.lto_priv.0'), 'bar');
  assert.equal(normaliseFunction('__filemap_add_folio'), '__filemap_add_folio');
  assert.equal(normaliseFunction('gcc2_compiled.'), 'gcc2_compiled.');
});

test('F1/F4/F6/F8 address-first frames', () => {
  assert.deepEqual(
    frames(classifyStackLine(' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]')),
    ['snd_pcm_period_elapsed[snd_pcm]+727'],
  );
  assert.deepEqual(frames(classifyStackLine(' [<b013495b>] handle_IRQ_event+0x4e/0xb6 (44)')), [
    'handle_IRQ_event+78',
  ]);
  assert.deepEqual(
    frames(classifyStackLine('  <IRQ>  [<ffffffff81688abb>] dump_stack+0x19/0x1b')),
    ['<irq>', 'dump_stack+25'],
  );
  assert.deepEqual(
    frames(
      classifyStackLine('  <EOI>  [<ffffffff8106d4cf>] ? __hrtimer_start_range_ns+0x18f/0x440'),
    ),
    ['<end-irq>', '?__hrtimer_start_range_ns+399'],
  );
  assert.deepEqual(frames(classifyStackLine('[<ffffffff8102a0ac>] ? 0xffffffff8102a0ac')), [
    '?0xffffffff8102a0ac',
  ]);
  assert.deepEqual(frames(classifyStackLine(' [<c010019f>] 0xc010019f')), ['0xc010019f']);
  assert.equal(classifyStackLine(' [<f08c2431>]').kind, 'partial');
});

test('F2 print_symbol pairs: the second symbol is the real one', () => {
  assert.deepEqual(
    frames(
      classifyStackLine(
        ' [__crc_totalram_pages+1279533/3558647] snd_pcm_period_elapsed+0x2c7/0x400 [snd_pcm]',
      ),
    ),
    ['snd_pcm_period_elapsed[snd_pcm]+711'],
  );
});

test('F3 old x86_64, two per line, inline markers', () => {
  assert.deepEqual(
    frames(
      classifyStackLine(
        'Call Trace: <IRQ> <ffffffff880f6984>{:ipath_core:ipath_verbs_send+362} <ffffffff8010e0a6>{apic_timer_interrupt+102}',
      ),
    ),
    ['<irq>', 'ipath_verbs_send[ipath_core]+362', 'apic_timer_interrupt+102'],
  );
  assert.deepEqual(
    frames(
      classifyStackLine(
        '  <ffffffff8010e0a6>{apic_timer_interrupt+102} <EOI> <ffffffff80169a4c>{shrink_list+60}',
      ),
    ),
    ['apic_timer_interrupt+102', '<end-irq>', 'shrink_list+60'],
  );
});

test('F5 modern, arm64 (C)/(P) tags, markers on their own line', () => {
  assert.deepEqual(
    frames(classifyStackLine('  ? ohci_flush_iso_completions+0x116/0x150 [firewire_ohci]')),
    ['?ohci_flush_iso_completions[firewire_ohci]+278'],
  );
  assert.deepEqual(frames(classifyStackLine('  drop_buffers.constprop.0+0x34/0x120 (P)')), [
    'drop_buffers+52',
  ]);
  assert.deepEqual(frames(classifyStackLine(' </IRQ>')), ['<end-irq>']);
  assert.deepEqual(frames(classifyStackLine(' <TASK>')), ['<task>']);
});

test('F7 ARM caller/callee pairs with modules', () => {
  assert.deepEqual(
    frames(
      classifyStackLine(
        '[<bf0b3144>] (dwc2_hsotg_init_fifo [dwc2]) from [<bf0b517c>] (dwc2_hsotg_core_init_disconnected+0x78/0x320 [dwc2])',
      ),
    ),
    ['dwc2_hsotg_init_fifo[dwc2]', 'dwc2_hsotg_core_init_disconnected[dwc2]+120'],
  );
  assert.deepEqual(
    frames(
      classifyStackLine('[<c0025d30>] (dump_stack+0x0/0x14) from [<c01a1cc4>] (xrun+0x60/0x6c)'),
    ),
    ['dump_stack+0', 'xrun+96'],
  );
});

test('F9 syzkaller and F10 decode_stacktrace', () => {
  assert.deepEqual(frames(classifyStackLine(' dump_stack+0xfa/0x151 lib/dump_stack.c:120')), [
    'dump_stack+250',
  ]);
  const inl = classifyStackLine(' spin_lock include/linux/spinlock.h:354 [inline]');
  assert.equal(
    inl.kind === 'frames' && inl.tokens[0]?.type === 'frame' && inl.tokens[0].frame.inline,
    true,
  );
  assert.deepEqual(
    frames(classifyStackLine('? exc_invalid_op (arch/x86/kernel/traps.c:258 (discriminator 1)) ')),
    ['?exc_invalid_op'],
  );
  assert.deepEqual(frames(classifyStackLine('dl_task_timer (kernel/sched/deadline.c:1193) ')), [
    'dl_task_timer',
  ]);
});

test('ftrace => frames', () => {
  assert.deepEqual(frames(classifyStackLine(' => test_unlock+0x5d/0x250 [test_lockup]')), [
    'test_unlock[test_lockup]+93',
  ]);
  assert.deepEqual(frames(classifyStackLine(' => 0xffffffffc01f40c8')), ['0xffffffffc01f40c8']);
});

test('interrupted registers: kernel vs user', () => {
  const k = classifyStackLine('RIP: 0010:_raw_spin_unlock_irq+0x15/0x30');
  assert.equal(
    k.kind === 'regs' && k.mode === 'kernel' && k.frame?.function,
    '_raw_spin_unlock_irq',
  );
  assert.deepEqual(classifyStackLine('RIP: 0033:0x7fe7b978b350'), { kind: 'regs', mode: 'user' });
  const old = classifyStackLine(
    'RIP: 0010:[<ffffffff8100b8f5>]  [<ffffffff8100b8f5>] intel_idle+0xd5/0x180',
  );
  assert.equal(old.kind === 'regs' && old.frame?.function, 'intel_idle');
  const eip = classifyStackLine('EIP: 0060:[<c0123456>] EFLAGS: 00000246 CPU: 0');
  assert.equal(eip.kind === 'regs' && eip.mode === 'kernel' && eip.frame === undefined, true);
  const eipAt = classifyStackLine('EIP is at delay_tsc+0x12/0x30');
  assert.equal(eipAt.kind === 'regs' && eipAt.frame?.function, 'delay_tsc');
  const pc = classifyStackLine('pc : cpuidle_enter_state+0x130/0x2f8');
  assert.equal(pc.kind === 'regs' && pc.frame?.function, 'cpuidle_enter_state');
  assert.equal(classifyStackLine('PC is at usb_api_blocking_completion+0x20/0x2c').kind, 'regs');
  assert.equal(
    classifyStackLine('pc : [<c041c380>]    lr : [<c0418d68>]    psr: 60000193').kind,
    'skip',
  );
  assert.equal(classifyStackLine('lr : el1_interrupt+0x34/0x68').kind, 'skip');
});

test('skip, context and other lines', () => {
  for (const l of [
    'RSP: 0018:ffffb5a3c05b7c58 EFLAGS: 00000246',
    'R13: 0000000000000000 R14: 0000000000000000 R15: 0000000000000000',
    'Code: 5d c3 cc cc <74> 05',
    ' ffffffff81a65aeb ffff880206c03bd8 ffffffff81688abb ffff880206c03c18',
    'df40: d0b3df7c d0b3df50 c012cd30 c012c4a8 006d6561 c0147b04 d14f1dc0 d14f1dc0',
    'x29: ffff800008003e30 x28: ffff000002c5a940 x27: 0000000000000000',
    'r10: 00000001  r9 : 00000100  r8 : 00000000',
    'irq event stamp: 1234',
    'Exception stack(0xc0833f40 to 0xc0833f88)',
  ]) {
    assert.equal(classifyStackLine(l).kind, 'skip', l);
  }
  assert.deepEqual(classifyStackLine('CPU: 1 PID: 646 Comm: dd Not tainted 6.1.192 #1'), {
    kind: 'context',
    cpuLine: true,
  });
  assert.deepEqual(classifyStackLine('Pid: 1902, comm: modprobe Not tainted 3.2.0 #64'), {
    kind: 'context',
    cpuLine: true,
  });
  assert.equal(classifyStackLine('Hardware name: quill (DT)').kind, 'context');
  assert.equal(classifyStackLine('Call Trace:').kind, 'context');
  assert.equal(classifyStackLine('---[ end trace 2872eb40b68e7379 ]---').kind, 'other');
  assert.equal(classifyStackLine('So it seems that the combination of the two is').kind, 'other');
  assert.equal(classifyStackLine('pcmC0D0p').kind, 'other');
  assert.deepEqual(classifyStackLine('[snd_pcm] (8)'), { kind: 'module-tail', module: 'snd_pcm' });
});

// Deterministic PRNG so property tests reproduce.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SAMPLE_FRAMES = [
  ' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]',
  '  ? ohci_flush_iso_completions+0x116/0x150 [firewire_ohci]',
  '  __filemap_add_folio+0x225/0x410',
  ' [__crc_totalram_pages+1386981/5353478] snd_emu10k1_interrupt+0x3c8/0x480 [snd_emu10k1]',
  '[<bf0b3144>] (dwc2_hsotg_init_fifo [dwc2]) from [<bf0b517c>] (dwc2_hsotg_core_init_disconnected+0x78/0x320 [dwc2])',
  '  <IRQ>  [<ffffffff81688abb>] dump_stack+0x19/0x1b',
  ' dump_stack+0xfa/0x151 lib/dump_stack.c:120',
  ' </IRQ>',
  'RIP: 0010:test_unlock+0x5d/0x250 [test_lockup]',
];
const PREFIXES: ((r: () => number) => string)[] = [
  () => '',
  (r) => `[${(r() * 99999).toFixed(6).padStart(12)}] `,
  (r) => `[${(r() * 99999).toFixed(6).padStart(12)}][${`T${Math.floor(r() * 9999)}`.padStart(6)}] `,
  (r) => `Jan ${String(1 + Math.floor(r() * 28)).padStart(2)} 12:34:56 host kernel: `,
  (r) => `ápr ${String(1 + Math.floor(r() * 28)).padStart(2)} 18:24:22 daniel-Nitro kernel: `,
  () => '[Thu Oct  7 12:44:01 2021] ',
  (r) => `Jul 13 14:36:16 box kernel: [${(r() * 999).toFixed(6).padStart(12)}] `,
  (r) => `[ ${(r() * 9999).toFixed(6)}] kernel: `,
  () => '[  +0.000006] ',
];

test('property: any transport/quote prefix combination parses the same frames', () => {
  const r = rng(42);
  for (let i = 0; i < 2000; i++) {
    const frame = SAMPLE_FRAMES[Math.floor(r() * SAMPLE_FRAMES.length)]!;
    const prefix = PREFIXES[Math.floor(r() * PREFIXES.length)]!(r);
    const quote = ['', '> ', '> > ', '>> ', '>'][Math.floor(r() * 5)]!;
    const line = quote + prefix + frame;
    const bare = classifyStackLine(frame);
    const got = classifyStackLine(parseLogLine(line).body);
    assert.deepEqual(got, bare, line);
  }
});

test('property: random garbage never throws and is never a frame with a junk name', () => {
  const r = rng(7);
  const alphabet = '[]<>(){}+/:?=-_.,;0123456789abcdefxXRIPCU \t\u0000\uFFFDé>';
  for (let i = 0; i < 20000; i++) {
    const len = Math.floor(r() * 120);
    let s = '';
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(r() * alphabet.length)];
    const ll = parseLogLine(s, r() < 0.5);
    const sl = classifyStackLine(ll.body);
    if (sl.kind === 'frames') {
      for (const t of sl.tokens) if (t.type === 'frame') assert.ok(t.frame.function.length > 0);
    }
  }
});

test('pathological long lines are classified without catastrophic backtracking', () => {
  // Before the fix, 320 hex digits followed by " (x" took minutes (exponential regex).
  // No timing assertion: an exponential regex makes this test hang and the runner fail it.
  const pats = [
    'a',
    'a(',
    '(a:1 ',
    'foo+0x1/0x2 ',
    ' [<c0>] ',
    '[',
    ' =>',
    '<ffffffff880f6984>{a+1} ',
    'RIP: 0010:',
    'pc : ',
    'deadbeef',
  ];
  for (const p of pats) {
    const s = p.repeat(Math.ceil(4000 / p.length));
    for (const v of [s, `a ${s}`, `${s} (x`, `f ${s}:1`]) classifyStackLine(parseLogLine(v).body);
  }
  assert.equal(classifyStackLine(' ffffffff81a65aeb ffff880206c03bd8').kind, 'skip');
  assert.equal(classifyStackLine(`${'a'.repeat(320)} (x`).kind, 'other');
});
