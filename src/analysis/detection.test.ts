// Detection context (issue 17): one constructed stack per recognised shape and era, in each
// capture form the analyzer reads that the era has (xrun_debug dmesg; ftrace/kprobe `=>` stacks
// since kprobe events exist, 2.6.33+), plus the real lab traces. The IRQ-thread, softirq-thread
// and process-context infrastructure and ALSA's own frames must never be the offender.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { analyzeText } from './analyzer.js';
import { parseDetectionEvidence } from './detection.js';
import { analysisJson } from './json-report.js';
import { renderTextReport } from './report.js';
import { runViewFromAnalysis } from '../report-html/from-analysis.js';
import type { DetectionContext } from './types.js';

const LOGS = fileURLToPath(new URL('../../test/fixtures/kernel-logs/', import.meta.url));

interface Shape {
  /** What the stack is, and the era whose function names it uses. */
  name: string;
  era: '2.6' | '3.x' | '4.x' | '6.x';
  comm: string;
  pid: number;
  context: DetectionContext;
  via: string;
  /** Frames below the printer, innermost first, as `function+0xoff/0xsize [module]`. */
  frames: string[];
}

const ALSA = [
  '__snd_pcm_xrun+0x5/0x6b [snd_pcm]',
  'snd_pcm_update_state+0xf4/0x100 [snd_pcm]',
  'snd_pcm_update_hw_ptr0+0x238/0x790 [snd_pcm]',
];
const PERIOD = [
  ...ALSA,
  'snd_pcm_period_elapsed_under_stream_lock+0x5d/0x80 [snd_pcm]',
  'snd_pcm_period_elapsed+0x1f/0x40 [snd_pcm]',
];
const HDA = [
  ...PERIOD,
  'stream_update+0x3a/0x50 [snd_hda_intel]',
  'snd_hdac_bus_handle_stream_irq+0xa2/0xe0 [snd_hda_core]',
  'azx_interrupt+0xd1/0x1a0 [snd_hda_codec]',
];
const DUMMY = [
  ...PERIOD,
  'dummy_hrtimer_callback+0x21/0x60 [snd_dummy]',
  '__hrtimer_run_queues+0x14b/0x290',
  'hrtimer_run_softirq+0x88/0xd0',
];

const shapes: Shape[] = [
  {
    name: 'forced IRQ thread (threadirqs, PREEMPT_RT)',
    era: '6.x',
    comm: 'irq/33-snd_hda_',
    pid: 159,
    context: 'irq-thread',
    via: 'irq_forced_thread_fn',
    frames: [
      ...HDA,
      'irq_forced_thread_fn+0x1c/0x70',
      'irq_thread+0xe7/0x1a0',
      'kthread+0xd7/0x100',
      'ret_from_fork+0x22/0x30',
    ],
  },
  {
    name: 'request_threaded_irq handler',
    era: '6.x',
    comm: 'irq/45-sof-audi',
    pid: 311,
    context: 'irq-thread',
    via: 'irq_thread_fn',
    frames: [
      ...PERIOD,
      'hda_dsp_stream_threaded_handler+0x9c/0x110 [snd_sof_intel_hda_common]',
      'irq_thread_fn+0x20/0x60',
      'irq_thread+0xe7/0x1a0',
      'kthread+0xd7/0x100',
      'ret_from_fork+0x22/0x30',
    ],
  },
  {
    name: "softirqs run at the IRQ thread's local_bh_enable",
    era: '6.x',
    comm: 'irq/33-snd_hda_',
    pid: 159,
    context: 'softirq',
    via: 'irq_forced_thread_fn',
    frames: [
      ...DUMMY,
      'handle_softirqs+0xd7/0x280',
      '__local_bh_enable_ip+0x6c/0x70',
      'irq_forced_thread_fn+0x4f/0x70',
      'irq_thread+0xe7/0x1a0',
      'kthread+0xd7/0x100',
      'ret_from_fork+0x22/0x30',
    ],
  },
  {
    name: 'ksoftirqd (threadirqs: the HRTIMER softirq of snd-dummy)',
    era: '6.x',
    comm: 'ksoftirqd/1',
    pid: 21,
    context: 'softirq',
    via: 'run_ksoftirqd',
    frames: [
      ...DUMMY,
      'handle_softirqs+0xd7/0x280',
      'run_ksoftirqd+0x24/0x40',
      'smpboot_thread_fn+0xdd/0x1d0',
      'kthread+0xd7/0x100',
      'ret_from_fork+0x22/0x30',
    ],
  },
  {
    name: "PREEMPT_RT's ktimers thread",
    era: '6.x',
    comm: 'ktimers/0',
    pid: 15,
    context: 'softirq',
    via: 'run_timersd',
    frames: [
      ...DUMMY,
      'handle_softirqs+0xd7/0x280',
      'run_timersd+0x6e/0xb0',
      'smpboot_thread_fn+0xdd/0x1d0',
      'kthread+0xd7/0x100',
      'ret_from_fork+0x22/0x30',
    ],
  },
  {
    name: "the audio server's DELAY ioctl (timer-scheduled playback)",
    era: '6.x',
    comm: 'pipewire',
    pid: 122,
    context: 'process',
    via: 'snd_pcm_delay',
    frames: [
      ...ALSA,
      'snd_pcm_delay+0x33/0x140 [snd_pcm]',
      'snd_pcm_common_ioctl+0x7bd/0x1130 [snd_pcm]',
      'snd_pcm_ioctl+0x23/0x40 [snd_pcm]',
      '__x64_sys_ioctl+0x90/0xd0',
      'do_syscall_64+0x34/0x90',
      'entry_SYSCALL_64_after_hwframe+0x6e/0xd8',
    ],
  },
  {
    name: 'HWSYNC ioctl',
    era: '6.x',
    comm: 'jackd',
    pid: 700,
    context: 'process',
    via: 'snd_pcm_hwsync',
    frames: [
      ...ALSA,
      'snd_pcm_hwsync+0x2a/0x50 [snd_pcm]',
      'snd_pcm_common_ioctl+0x1a0/0x1130 [snd_pcm]',
      'snd_pcm_ioctl+0x23/0x40 [snd_pcm]',
      '__x64_sys_ioctl+0x90/0xd0',
      'do_syscall_64+0x34/0x90',
      'entry_SYSCALL_64_after_hwframe+0x6e/0xd8',
    ],
  },
  {
    name: 'STATUS64 ioctl',
    era: '6.x',
    comm: 'pulseaudio',
    pid: 901,
    context: 'process',
    via: 'snd_pcm_status64',
    frames: [
      'snd_pcm_update_hw_ptr0+0x238/0x790 [snd_pcm]',
      'snd_pcm_update_hw_ptr+0x10/0x20 [snd_pcm]',
      'snd_pcm_status64+0x9b/0x1d0 [snd_pcm]',
      'snd_pcm_status_user64+0x58/0xb0 [snd_pcm]',
      'snd_pcm_common_ioctl+0x9a1/0x1130 [snd_pcm]',
      'snd_pcm_ioctl+0x23/0x40 [snd_pcm]',
      '__x64_sys_ioctl+0x90/0xd0',
      'do_syscall_64+0x34/0x90',
      'entry_SYSCALL_64_after_hwframe+0x6e/0xd8',
    ],
  },
  {
    name: 'the write ioctl (WRITEI_FRAMES)',
    era: '6.x',
    comm: 'aplay',
    pid: 188,
    context: 'process',
    via: '__snd_pcm_lib_xfer',
    frames: [
      ...ALSA,
      '__snd_pcm_lib_xfer+0x5e7/0x8a0 [snd_pcm]',
      'snd_pcm_common_ioctl+0x107/0x1130 [snd_pcm]',
      'snd_pcm_ioctl+0x23/0x40 [snd_pcm]',
      '__x64_sys_ioctl+0x90/0xd0',
      'do_syscall_64+0x34/0x90',
      'entry_SYSCALL_64_after_hwframe+0x6e/0xd8',
    ],
  },
  {
    name: '-rt softirqs at the IRQ thread (do_current_softirqs)',
    era: '4.x',
    comm: 'irq/16-snd_hda_',
    pid: 140,
    context: 'softirq',
    via: 'do_current_softirqs',
    frames: [
      ...PERIOD,
      'snd_dummy_systimer_callback+0x80/0xb0 [snd_dummy]',
      'call_timer_fn+0x30/0x130',
      'run_timer_softirq+0x1f5/0x460',
      'do_current_softirqs+0x223/0x3e0',
      '__local_bh_enable+0x51/0x60',
      'irq_forced_thread_fn+0x5e/0x80',
      'irq_thread+0x13d/0x1a0',
      'kthread+0x112/0x130',
      'ret_from_fork+0x35/0x40',
    ],
  },
  {
    name: '3.x forced IRQ thread',
    era: '3.x',
    comm: 'irq/44-snd_hda_',
    pid: 233,
    context: 'irq-thread',
    via: 'irq_forced_thread_fn',
    frames: [
      ...PERIOD,
      'azx_interrupt+0x12d/0x1a0 [snd_hda_intel]',
      'irq_forced_thread_fn+0x2e/0x70',
      'irq_thread+0x12f/0x180',
      'kthread+0xc0/0xd0',
      'ret_from_fork+0x7c/0xb0',
    ],
  },
  {
    name: '3.x HWSYNC ioctl (snd_pcm_playback_ioctl1, system_call_fastpath)',
    era: '3.x',
    comm: 'pulseaudio',
    pid: 1402,
    context: 'process',
    via: 'snd_pcm_hwsync',
    frames: [
      '__snd_pcm_xrun+0x3c/0xa0 [snd_pcm]',
      'snd_pcm_update_hw_ptr0+0x295/0x3d0 [snd_pcm]',
      'snd_pcm_hwsync+0x4a/0x70 [snd_pcm]',
      'snd_pcm_common_ioctl1+0x5a6/0xc60 [snd_pcm]',
      'snd_pcm_playback_ioctl1+0x5b/0x280 [snd_pcm]',
      'snd_pcm_playback_ioctl+0x2e/0x40 [snd_pcm]',
      'do_vfs_ioctl+0x2e0/0x4c0',
      'SyS_ioctl+0x81/0xa0',
      'system_call_fastpath+0x16/0x1b',
    ],
  },
  {
    name: '2.6 -rt IRQ thread (do_irqd, thread_level_irq)',
    era: '2.6',
    comm: 'IRQ 16',
    pid: 310,
    context: 'irq-thread',
    via: 'thread_level_irq',
    frames: [
      'snd_pcm_period_elapsed+0x1e7/0x27a [snd_pcm]',
      'snd_emu10k1_interrupt+0x80/0x120 [snd_emu10k1]',
      'handle_IRQ_event+0x4e/0xb6',
      'thread_level_irq+0x6f/0xc4',
      'do_hardirq+0x40/0x81',
      'do_irqd+0x5c/0x8a',
      'kthread+0x79/0xa3',
      'kernel_thread_helper+0x5/0xb',
    ],
  },
  {
    name: '2.6 ksoftirqd (a timer softirq)',
    era: '2.6',
    comm: 'ksoftirqd/0',
    pid: 4,
    context: 'softirq',
    via: 'ksoftirqd',
    frames: [
      'snd_pcm_period_elapsed+0x1e7/0x27a [snd_pcm]',
      'snd_dummy_pcm_timer_function+0x5e/0x70 [snd_dummy]',
      'run_timer_softirq+0x15a/0x1e0',
      '__do_softirq+0x5e/0xd0',
      'do_softirq+0x43/0x50',
      'ksoftirqd+0x7d/0xc0',
      'kthread+0x79/0xa3',
      'kernel_thread_helper+0x5/0xb',
    ],
  },
  {
    name: '2.6 write (snd_pcm_lib_write1, syscall_call)',
    era: '2.6',
    comm: 'aplay',
    pid: 2210,
    context: 'process',
    via: 'snd_pcm_lib_write1',
    frames: [
      'snd_pcm_update_hw_ptr+0x2d7/0x430 [snd_pcm]',
      'snd_pcm_lib_write1+0x8c/0x2a0 [snd_pcm]',
      'snd_pcm_lib_write+0x43/0x60 [snd_pcm]',
      'snd_pcm_playback_ioctl1+0x3d5/0x560 [snd_pcm]',
      'snd_pcm_playback_ioctl+0x2e/0x40 [snd_pcm]',
      'do_ioctl+0x6c/0x80',
      'vfs_ioctl+0x5e/0x1e0',
      'sys_ioctl+0x41/0x70',
      'syscall_call+0x7/0xb',
    ],
  },
];

/** The dump xrun_debug prints in the shape's era (dump_stack's task line and frame grammar). */
function dmesgForm(s: Shape): string {
  const t = (i: number): string => `[  117.${String(219875 + i).padStart(6, '0')}] `;
  const out: string[] = [];
  const frame = (f: string, i: number): string =>
    s.era === '2.6' || s.era === '3.x'
      ? ` [<ffffffff81${(0x10000 + i * 0x40).toString(16)}>] ${f}`
      : ` ${f}`;
  if (s.era === '2.6') {
    out.push('XRUN: pcmC0D0p');
    out.push(`Pid: ${s.pid}, comm: ${s.comm} Not tainted 2.6.24-rt1 #1`);
    out.push(' [<c0105f3e>] dump_stack+0x1e/0x30');
  } else {
    out.push('snd_hda_intel 0000:00:1b.0: XRUN: pcmC0D0p:0');
    const rel = s.era === '3.x' ? '3.18.0-rt1' : s.era === '4.x' ? '4.19.0-rt1' : '6.1.0-57-amd64';
    out.push(`CPU: 0 PID: ${s.pid} Comm: ${s.comm} Not tainted ${rel} #1`);
    out.push('Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2 04/01/2014');
    out.push('Call Trace:');
    if (s.era === '6.x') out.push(' <TASK>');
    out.push(s.era === '6.x' ? ' dump_stack_lvl+0x44/0x5c' : frame('dump_stack+0x4f/0x7c', 0));
  }
  s.frames.forEach((f, i) => out.push(frame(f, i + 1)));
  if (s.era === '6.x') out.push(' </TASK>');
  return out.map((l, i) => t(i) + l).join('\n');
}

/** The kprobe backend's trace_pipe text: the xrun line, its `<stack trace>`, `=>` frames. */
function ftraceForm(s: Shape, flags = 'd..1.'): string {
  const who = `${s.comm.padStart(16)}-${s.pid}`;
  return [
    `${who}     [000] ${flags}   117.219875: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])`,
    `${who}     [000] ${flags}   117.219880: <stack trace>`,
    ' => kprobe_trace_func',
    ' => kprobe_dispatcher',
    ' => kprobe_ftrace_handler',
    ' => 0xffffffffc02620c8',
    ...s.frames.map((f) => ` => ${f.replace(/\+0x.*$/, '')}`),
  ].join('\n');
}

const forms = (s: Shape): [string, string][] =>
  s.era === '2.6'
    ? [['xrun_debug dmesg', dmesgForm(s)]]
    : [
        ['xrun_debug dmesg', dmesgForm(s)],
        ['kprobe trace_pipe', ftraceForm(s)],
      ];

for (const s of shapes) {
  for (const [form, text] of forms(s)) {
    test(`detector-only: ${s.name} (${s.era}, ${form})`, () => {
      const r = analyzeText(text);
      assert.equal(r.events.length, 1, 'one event');
      const e = r.events[0]!;
      assert.equal(e.offender.class, 'detector-only', e.offender.reason);
      assert.equal(e.offender.function, null);
      assert.equal(e.offenderIndex, undefined);
      assert.deepEqual(e.detection, {
        context: s.context,
        via: s.via,
        evidence: 'stack',
        task: { comm: s.comm, pid: s.pid },
      });
      assert.deepEqual(r.offenders, [], 'never ranked');
      assert.equal(r.summary.byClass['detector-only'], 1);
      assert.deepEqual(r.summary.detectorOnly, [{ context: s.context, count: 1, tasks: [s.comm] }]);
      assert.match(e.offender.reason ?? '', new RegExp(`${s.comm} \\(pid ${s.pid}\\)`));
      assert.match(e.offender.reason ?? '', /own/);
      // …and how to get the real answer.
      assert.match(e.offender.reason ?? '', /--recorder on/);
      if (s.context !== 'process') assert.match(e.offender.reason ?? '', /without threadirqs/);
      // Every frame of the stack is explained as the detector's, none chosen, and none of it
      // is said to have run in a hard interrupt.
      assert.equal(e.offender.explanation?.chosen, null);
      assert.ok(!e.frames.some((f) => f.context === 'irq'), 'no frame in hard-IRQ context');
    });
  }
}

test('ARM unwinder form (`(callee) from (caller)`): a 4.x -rt forced IRQ thread', () => {
  const lines = [
    'bcm2835_audio bcm2835_audio: XRUN: pcmC0D0p:0',
    'CPU: 0 PID: 87 Comm: irq/86-3f00b840 Not tainted 4.19.71-rt24-v7+ #1',
    'Hardware name: BCM2835',
    '[<80110e4c>] (unwind_backtrace) from [<8010b6c4>] (show_stack+0x10/0x14)',
    '[<8010b6c4>] (show_stack) from [<80850b58>] (dump_stack+0x98/0xac)',
    '[<80850b58>] (dump_stack) from [<7f0a39c4>] (__snd_pcm_xrun+0xa0/0x114 [snd_pcm])',
    '[<7f0a39c4>] (__snd_pcm_xrun [snd_pcm]) from [<7f0a3b10>] (snd_pcm_update_hw_ptr0+0x3c8/0x4a8 [snd_pcm])',
    '[<7f0a3b10>] (snd_pcm_update_hw_ptr0 [snd_pcm]) from [<7f0a3c2c>] (snd_pcm_period_elapsed+0x74/0xa4 [snd_pcm])',
    '[<7f0a3c2c>] (snd_pcm_period_elapsed [snd_pcm]) from [<7f0c1234>] (bcm2835_playback_fifo+0x50/0x80 [snd_bcm2835])',
    '[<7f0c1234>] (bcm2835_playback_fifo [snd_bcm2835]) from [<8016da14>] (irq_forced_thread_fn+0x84/0x98)',
    '[<8016da14>] (irq_forced_thread_fn) from [<8016dd4c>] (irq_thread+0x120/0x1f0)',
    '[<8016dd4c>] (irq_thread) from [<8013e5a4>] (kthread+0x170/0x174)',
    '[<8013e5a4>] (kthread) from [<801010e8>] (ret_from_fork+0x14/0x2c)',
  ];
  const e = analyzeText(lines.join('\n')).events[0]!;
  assert.equal(e.offender.class, 'detector-only');
  assert.deepEqual(e.detection, {
    context: 'irq-thread',
    via: 'irq_forced_thread_fn',
    evidence: 'stack',
    task: { comm: 'irq/86-3f00b840', pid: 87 },
  });
});

test('hard-IRQ dumps keep their offender; the detection says hard IRQ or softirq on exit', () => {
  // The period interrupt over ext4 code (class kernel), and snd-dummy's HRTIMER softirq run
  // on interrupt exit over the same code: the interrupted context is after the boundary.
  const hard = [
    'snd_hda_intel 0000:00:1b.0: XRUN: pcmC0D0p:0',
    'CPU: 0 PID: 412 Comm: dd Not tainted 6.1.0-57-amd64 #1',
    'Call Trace:',
    ' <IRQ>',
    ' dump_stack_lvl+0x44/0x5c',
    ...HDA.map((f) => ` ${f}`),
    ' __handle_irq_event_percpu+0x4a/0x180',
    ' handle_irq_event+0x34/0x70',
    ' handle_edge_irq+0x9f/0x240',
    ' __common_interrupt+0x66/0x110',
    ' common_interrupt+0x9f/0xc0',
    ' </IRQ>',
    ' <TASK>',
    ' asm_common_interrupt+0x22/0x40',
    'RIP: 0010:ext4_finish_bio+0x1e2/0x250',
    ' ext4_end_bio+0x4a/0x110',
    ' </TASK>',
  ];
  const soft = [
    'snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0',
    'CPU: 1 PID: 412 Comm: dd Not tainted 6.1.0-57-amd64 #1',
    'Call Trace:',
    ' <IRQ>',
    ' dump_stack_lvl+0x44/0x5c',
    ...DUMMY.map((f) => ` ${f}`),
    ' handle_softirqs+0xd7/0x280',
    ' __irq_exit_rcu+0xa8/0xd0',
    ' sysvec_apic_timer_interrupt+0x72/0x90',
    ' </IRQ>',
    ' <TASK>',
    ' asm_sysvec_apic_timer_interrupt+0x16/0x20',
    'RIP: 0010:ext4_finish_bio+0x1e2/0x250',
    ' ext4_end_bio+0x4a/0x110',
    ' </TASK>',
  ];
  for (const [lines, context] of [
    [hard, 'hardirq'],
    [soft, 'softirq'],
  ] as const) {
    const r = analyzeText(lines.join('\n'));
    const e = r.events[0]!;
    assert.deepEqual([e.offender.class, e.offender.function], ['kernel', 'ext4_finish_bio']);
    assert.equal(e.detection?.context, context);
    // In an interrupt the printed task is the interrupted one.
    assert.deepEqual(e.detection?.task, { comm: 'dd', pid: 412 });
    assert.equal(r.summary.detectorOnly, undefined);
    assert.doesNotMatch(renderTextReport(r), /detector/);
  }
});

test('a hard interrupt over an IRQ thread in its own loop is not the thread detecting', () => {
  // snd-dummy's HRTIMER softirq run on interrupt exit, the interrupt taken while the IRQ
  // thread sat in irq_thread: the stack shows a hard-IRQ entry, so the thread is not the
  // detector (no interrupted code to name either: class none, as before).
  const text = [
    '     irq/45-e1000-312     [000] d.s1.   117.219875: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])',
    '     irq/45-e1000-312     [000] d.s1.   117.219880: <stack trace>',
    ...[
      ...DUMMY,
      'handle_softirqs',
      '__irq_exit_rcu',
      'sysvec_apic_timer_interrupt',
      'asm_sysvec_apic_timer_interrupt',
      'irq_thread',
      'kthread',
      'ret_from_fork',
    ].map((f) => ` => ${f.replace(/\+0x.*$/, '')}`),
  ].join('\n');
  const e = analyzeText(text).events[0]!;
  assert.equal(e.offender.class, 'none');
  assert.equal(e.detection?.context, 'softirq');
  assert.deepEqual(e.detection?.task, { comm: 'irq/45-e1000', pid: 312 });
});

test('an xrun line without a stack: the ftrace flags and the task name tell the context', () => {
  const line = (who: string, flags: string): string =>
    `${who} [000] ${flags}   8.283486: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])`;
  const cases: [string, string, DetectionContext][] = [
    [' irq/33-snd_hda_-167', 'b....13', 'irq-thread'], // PREEMPT_RT's 7 columns
    ['     ksoftirqd/1-21', 'd.s1.', 'softirq'],
    ['           aplay-188', 'd..1.', 'process'],
    ['              dd-179', 'd.h1.', 'hardirq'],
  ];
  for (const [who, flags, context] of cases) {
    const r = analyzeText(line(who, flags));
    const e = r.events[0]!;
    // No stack: nothing to name and nothing to call the detector's own (class none).
    assert.equal(e.offender.class, 'none');
    assert.equal(e.detection?.context, context, `${who} ${flags}`);
    assert.equal(e.detection?.evidence, 'flags');
  }
});

test("an xrun line waits for its own <stack trace>; another task's stack is not attached", () => {
  const s = shapes[0]!;
  const [xrun, start, ...frames] = ftraceForm(s).split('\n');
  const text = [
    xrun!,
    // An interrupt on the same CPU and another CPU's events, recorded before the stack.
    ' irq/33-snd_hda_-159     [000] D..h413     8.284096: hrtimer_expire_entry: hrtimer=(____ptrval____) function=tick_sched_timer now=8284089041',
    '          <idle>-0       [001] d..h1..     8.284217: hrtimer_expire_entry: hrtimer=(____ptrval____) function=tick_sched_timer now=8284209781',
    // A stack of another task (a stacktrace trigger on another event): not the xrun's.
    '     kworker/1:2-66      [001] d..2.   117.219879: <stack trace>',
    ' => worker_thread',
    ' => kthread',
    '     kworker/1:2-66      [001] d..2.   117.219879: sched_switch: prev_comm=kworker/1:2 prev_pid=66 prev_prio=120 prev_state=I ==> next_comm=swapper/1 next_pid=0 next_prio=120',
    start!,
    ...frames,
  ].join('\n');
  const r = analyzeText(text);
  assert.equal(r.events.length, 1);
  const e = r.events[0]!;
  assert.equal(e.offender.class, 'detector-only');
  assert.equal(e.frames[0]!.function, '__snd_pcm_xrun');
  assert.ok(!e.frames.some((f) => f.function === 'worker_thread'), 'foreign stack left out');
});

test('an xrun line waits at most 64 lines: a later stack of the same task is not its own', () => {
  const [xrun, start, ...frames] = ftraceForm(shapes[0]!).split('\n');
  const other =
    ' irq/33-snd_hda_-159     [000] D..h413     8.284215: irq_handler_entry: irq=33 name=snd_hda_intel:card0';
  const r = analyzeText([xrun!, ...Array<string>(70).fill(other), start!, ...frames].join('\n'));
  assert.equal(r.events.length, 1);
  assert.deepEqual(r.events[0]!.frames, []);
  assert.equal(r.events[0]!.offender.reason, 'no stack printed');
  assert.equal(r.events[0]!.detection?.context, 'irq-thread', 'from the flags and the task name');
});

test('two xrun lines of two CPUs before their stacks: each gets its own', () => {
  const irqThread = ftraceForm(shapes[0]!).split('\n');
  const server = ftraceForm(shapes[5]!)
    .split('\n')
    .map((l) => l.replace('[000]', '[001]'));
  const text = [irqThread[0]!, server[0]!, ...server.slice(1), ...irqThread.slice(1)].join('\n');
  const r = analyzeText(text);
  assert.equal(r.events.length, 2);
  const by = new Map(r.events.map((e) => [e.detection?.task?.comm, e]));
  assert.equal(by.get('irq/33-snd_hda_')?.detection?.via, 'irq_forced_thread_fn');
  assert.equal(by.get('pipewire')?.detection?.via, 'snd_pcm_delay');
  assert.ok(!by.get('pipewire')!.frames.some((f) => f.function === 'azx_interrupt'));
});

test('the task evidence of every era: ftrace comm-pid, dump_stack task lines', () => {
  assert.deepEqual(
    parseDetectionEvidence(
      ' irq/33-snd_hda_-159     [000] D..1.     8.572607: xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])',
    ),
    { task: { comm: 'irq/33-snd_hda_', pid: 159 }, flagsContext: 'task' },
  );
  assert.deepEqual(
    parseDetectionEvidence('  aplay-26187 (  26187) [004] d.h3  4012.834761: xrun: x'),
    { task: { comm: 'aplay', pid: 26187 }, flagsContext: 'hardirq' },
  );
  const dump = (l: string) => parseDetectionEvidence('XRUN: pcmC0D0p', l).task;
  assert.deepEqual(dump('CPU: 1 PID: 122 Comm: pipewire Not tainted 6.1.192 #1'), {
    comm: 'pipewire',
    pid: 122,
  });
  assert.deepEqual(dump('CPU: 3 UID: 0 PID: 21 Comm: ksoftirqd/3 Tainted: G  W  6.12.0'), {
    comm: 'ksoftirqd/3',
    pid: 21,
  });
  assert.deepEqual(dump('Pid: 2210, comm: aplay Not tainted 2.6.32-5-686 #1'), {
    comm: 'aplay',
    pid: 2210,
  });
  assert.deepEqual(parseDetectionEvidence('XRUN: pcmC0D0p'), {});
});

test('report, JSON and HTML say how many were detected where, instead of a ranked victim', () => {
  const r = analyzeText([shapes[0]!, shapes[0]!, shapes[5]!].map(dmesgForm).join('\n'));
  assert.equal(r.events.length, 3);
  const text = renderTextReport(r).replace(/\s+/g, ' ');
  assert.match(
    text,
    /2 XRUNs were detected in IRQ-thread context \(irq\/33-snd_hda_\): their stacks name the detector, not the culprit\./,
  );
  assert.match(
    text,
    /1 XRUN was detected in process context \(pipewire\): its stack names the detector, not the culprit\./,
  );
  assert.match(text, /--recorder on/);
  assert.match(text, /without `threadirqs`/);
  assert.match(text, /detector-only 3/);
  assert.doesNotMatch(text, /Offenders \(/, 'no ranking of victims');
  const json = analysisJson(r) as {
    events: { detection?: { context: string } }[];
    summary: { detectorOnly?: unknown };
  };
  assert.deepEqual(
    json.events.map((e) => e.detection?.context),
    ['irq-thread', 'irq-thread', 'process'],
  );
  assert.deepEqual(json.summary.detectorOnly, [
    { context: 'irq-thread', count: 2, tasks: ['irq/33-snd_hda_'] },
    { context: 'process', count: 1, tasks: ['pipewire'] },
  ]);
  const view = runViewFromAnalysis(r, ['x.log']);
  assert.match(view.conclusion.join(' '), /2 XRUNs were detected in IRQ-thread context/);
  assert.equal(view.classCounts['detector-only'], 3);
});

// The real lab runs (trimmed, see test/fixtures/kernel-logs/SOURCES.md).
const real: [string, number, Partial<Record<DetectionContext, number>>][] = [
  ['lab-debian-6.1-threadirqs-hda-kprobe.txt', 80, { 'irq-thread': 64, process: 16 }],
  ['lab-debian-6.1-rt-hda-kprobe.txt', 59, { 'irq-thread': 45, process: 14 }],
  ['lab-debian-6.1-threadirqs-dummy-ksoftirqd-kprobe.txt', 62, { softirq: 57, process: 5 }],
];
for (const [file, n, by] of real) {
  test(`real trace ${file}: every XRUN detector-only, no IRQ-thread or ALSA frame ranked`, () => {
    const r = analyzeText(readFileSync(LOGS + file, 'utf8'));
    assert.equal(r.events.length, n);
    // Every event kept its own stack (some had other events of the CPU before it).
    assert.ok(r.events.every((e) => e.frames.length > 0));
    assert.ok(r.events.every((e) => e.offender.class === 'detector-only'));
    const top = r.offenders[0];
    assert.ok(
      top === undefined ||
        !/^(?:irq_thread|irq_forced_thread_fn|azx_interrupt|snd_)/.test(top.function),
      `top offender ${top?.function}`,
    );
    assert.deepEqual(r.offenders, []);
    const counts = Object.fromEntries(
      (r.summary.detectorOnly ?? []).map((g) => [g.context, g.count]),
    );
    assert.deepEqual(counts, by);
  });
}

test("a real session's kernel.log under threadirqs: IRQ thread, own ioctl, HDA's deferred work", () => {
  const r = analyzeText(
    readFileSync(LOGS + 'lab-debian-6.1-threadirqs-hda-session-kprobe.txt', 'utf8'),
  );
  assert.deepEqual(
    r.events.map((e) => [e.offender.class, e.detection?.context, e.detection?.via]),
    [
      ['detector-only', 'irq-thread', 'irq_forced_thread_fn'],
      ['detector-only', 'irq-thread', 'irq_forced_thread_fn'],
      ['detector-only', 'process', '__snd_pcm_lib_xfer'],
      ['detector-only', 'irq-thread', 'irq_forced_thread_fn'],
      ['detector-only', 'process', '__snd_pcm_lib_xfer'],
      ['detector-only', 'process', '__snd_pcm_lib_xfer'],
      // azx_irq_pending_work: HDA's period work queued when the position was not ready yet.
      ['detector-only', 'process', 'process_one_work'],
      ['detector-only', 'process', 'process_one_work'],
      // The run stopped before this one's stack: no stack, context from the flags column.
      ['none', 'process', undefined],
    ],
  );
  assert.deepEqual(r.offenders, []);
});

test('real xrun_debug dumps (kmsg) under threadirqs: ksoftirqd and the write ioctl, stale `?` words', () => {
  const r = analyzeText(
    readFileSync(LOGS + 'lab-6.1-x86_64-threadirqs-dummy-xrun_debug-kmsg.txt', 'utf8'),
  );
  assert.deepEqual(
    r.events.map((e) => [e.kind, e.offender.class, e.detection?.context, e.detection?.task?.comm]),
    [
      ['hw_ptr_error', 'detector-only', 'softirq', 'ksoftirqd/1'],
      ['xrun', 'detector-only', 'softirq', 'ksoftirqd/1'],
      ['xrun', 'detector-only', 'process', 'node'],
      // `? asm_sysvec_apic_timer_interrupt` is a stale word, not a hard interrupt.
      ['xrun', 'detector-only', 'softirq', 'ksoftirqd/1'],
      ['xrun', 'detector-only', 'process', 'node'],
    ],
  );
});

test('real xrun_debug dumps (kmsg) of an HDA IRQ thread, the write ioctl and HDA deferred work', () => {
  const r = analyzeText(
    readFileSync(LOGS + 'lab-6.1-x86_64-threadirqs-hda-xrun_debug-kmsg.txt', 'utf8'),
  );
  assert.deepEqual(
    r.events.map((e) => [e.kind, e.offender.class, e.detection?.context, e.detection?.task?.comm]),
    [
      ['hw_ptr_error', 'detector-only', 'irq-thread', 'irq/29-snd_hda_'],
      ['xrun', 'detector-only', 'irq-thread', 'irq/29-snd_hda_'],
      ['xrun', 'detector-only', 'process', 'node'],
      ['xrun', 'detector-only', 'process', 'kworker/0:2'],
      ['xrun', 'detector-only', 'irq-thread', 'irq/29-snd_hda_'],
    ],
  );
  assert.deepEqual(r.offenders, []);
});

test('the 2.6.16-rt11 LKML dump: hw-pointer warning and XRUN both detected in the IRQ thread', () => {
  const r = analyzeText(
    readFileSync(LOGS + '042-i386-2.6.16-rt11-intel8x0-xrun-in-irq-thread-do_irqd.txt', 'utf8'),
  );
  assert.deepEqual(
    r.events.map((e) => [e.kind, e.offender.class, e.detection?.context, e.detection?.via]),
    [
      ['hw_ptr_error', 'detector-only', 'irq-thread', 'thread_edge_irq'],
      ['xrun', 'detector-only', 'irq-thread', 'thread_edge_irq'],
    ],
  );
});
