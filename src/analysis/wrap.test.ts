// Property tests: a header of every catalogue form, wrapped at every one of its spaces (into
// two and three lines, by a mailer, a terminal or a logger's literal \n / #012), is the same
// event; a frame of every grammar wrapped at any space is the same frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeText, createLogAnalyzer } from './analyzer.js';
import { loadMessageCatalogue } from './message-catalogue.js';
import { CAPTURE_FORMS, PREFIX_SAMPLES, expectedPcm, sampleMessage } from './catalogue-samples.js';

const cat = loadMessageCatalogue();
const events = cat.catalogue.entries.filter((e) => e.kind !== 'context' && e.kind !== 'note');
const FILLER = 'random: crng init done';

function spaces(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) if (s[i] === ' ') out.push(i);
  return out;
}

for (const entry of events) {
  test(`wrapping at every space: ${entry.id}`, () => {
    const prefixes = ['', ...entry.prefixes.map((p) => PREFIX_SAMPLES[p]![0]!)];
    for (const variant of [false, true]) {
      const msg = sampleMessage(entry, variant);
      const pcm = expectedPcm(entry, variant);
      for (const pre of prefixes) {
        const body = pre + msg;
        const check = (text: string, what: string): void => {
          const r = analyzeText(text);
          assert.equal(r.events.length, 1, `${what}\n${text}`);
          const ev = r.events[0]!;
          assert.deepEqual(
            [ev.kind, ev.pcm, ev.line, ev.header],
            [entry.kind, pcm, 2, body.trim()],
            `${what}\n${text}`,
          );
        };
        const cuts = spaces(body).filter((i) => i < body.trimEnd().length);
        for (const [form, wrap] of Object.entries(CAPTURE_FORMS)) {
          for (const i of cuts) {
            const a = body.slice(0, i);
            const b = body.slice(i + 1);
            check(`${FILLER}\n${wrap(a)}\n${b}\n${FILLER}`, `${form} cut at ${i}`);
            if (form === 'mail-quoted')
              check(`${FILLER}\n${wrap(a)}\n> > ${b}\n${FILLER}`, 'quoted');
            if (form === 'syslog' || form === 'plain') {
              check(`${FILLER}\n${wrap(`${a}\\n${b}`)}\n${FILLER}`, `${form} literal \\n at ${i}`);
              check(`${FILLER}\n${wrap(`${a}#012${b}`)}\n${FILLER}`, `${form} #012 at ${i}`);
            }
          }
        }
        // Three lines: every pair of spaces.
        for (const i of cuts)
          for (const j of cuts)
            if (j > i + 1)
              check(
                `${FILLER}\n${CAPTURE_FORMS['dmesg']!(body.slice(0, i))}\n${body.slice(i + 1, j)}\n${body.slice(j + 1)}\n${FILLER}`,
                `three lines at ${i},${j}`,
              );
      }
    }
  });
}

test('a wrapped header keeps its stack, and an unfinished wrap is still an event', () => {
  const stack = [
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]',
    ' [<c0107a9a>] handle_IRQ_event+0x2a/0x60',
    ' [<c0107e0b>] do_IRQ+0x8b/0x130',
    ' [<c0105fbc>] common_interrupt+0x18/0x20',
    ' [<c01430c8>] get_user_pages+0x138/0x390',
  ];
  const r = analyzeText(
    ['ALSA sound/core/pcm_lib.c:169:', 'XRUN:', 'pcmC0D0p', ...stack].join('\n'),
  );
  assert.deepEqual(
    r.events.map((e) => [e.line, e.pcm, e.offender.function]),
    [[1, 'pcmC0D0p', 'get_user_pages']],
  );
  // The continuation never came: the anchored part is an event, the stack still attaches.
  const cut = analyzeText(['XRUN:', ...stack].join('\n'));
  assert.deepEqual(
    cut.events.map((e) => [e.line, e.kind, e.pcm, e.offender.function]),
    [[1, 'xrun', null, 'get_user_pages']],
  );
  // `ALSA` alone followed by something else is nothing.
  assert.equal(analyzeText('ALSA\ndevice list:\n').events.length, 0);
});

// One dump per frame grammar; wrapping any frame line at any space must not change the result.
const DUMPS: Record<string, string[]> = {
  i386: [
    'XRUN: pcmC0D0p',
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
    ' [<d48b7f77>] snd_pcm_period_elapsed+0x2d7/0x430 [snd_pcm]',
    ' [<b013495b>] handle_IRQ_event+0x4e/0xb6 (44)',
    ' [<c0107e0b>] do_IRQ+0x8b/0x130',
    ' [<c0105fbc>] common_interrupt+0x18/0x20',
    ' [<c01430c8>] get_user_pages+0x138/0x390 [mymod]',
    ' [<c0143398>] make_pages_present+0x68/0x90',
  ],
  x86_64: [
    'snd_hda_intel 0000:00:1b.0: XRUN: pcmC0D0p:0',
    'Call Trace:',
    ' <IRQ>',
    ' dump_stack_lvl+0x4c/0x63',
    ' __snd_pcm_xrun.cold+0x5/0xa [snd_pcm]',
    ' ? snd_pcm_update_hw_ptr0+0x23a/0x6f0 [snd_pcm]',
    ' snd_pcm_period_elapsed+0x22/0x40 [snd_pcm]',
    ' azx_interrupt+0x91/0xd0 [snd_hda_codec]',
    ' __handle_irq_event_percpu+0x112/0x2b0',
    ' common_interrupt+0x35/0x90',
    ' </IRQ>',
    ' <TASK>',
    ' asm_common_interrupt+0x16/0x20',
    'RIP: 0010:_raw_spin_unlock_irqrestore+0x19/0x40',
    ' ext4_finish_bio+0x1e2/0x250 [ext4]',
    ' ? ext4_end_bio+0x45/0x120',
    ' </TASK>',
  ],
  arm: [
    'asoc-simple-card rk809-sound: XRUN: pcmC0D0p:0',
    '[<b0110d2c>] (unwind_backtrace) from [<b010c730>] (show_stack+0x10/0x14)',
    '[<b010c730>] (show_stack) from [<b0850b58>] (dump_stack+0x90/0xa4)',
    '[<b0850b58>] (dump_stack) from [<b06a39c4>] (__snd_pcm_xrun+0xa0/0x114 [snd_pcm])',
    '[<b06a39c4>] (__snd_pcm_xrun [snd_pcm]) from [<b06a4c10>] (snd_pcm_period_elapsed+0x50/0x5c)',
    '[<b06a4c10>] (snd_pcm_period_elapsed) from [<b0180b8c>] (handle_irq_event+0x44/0x90)',
    '[<b0180b8c>] (handle_irq_event) from [<b0101208>] (__irq_svc+0x68/0x84)',
    '[<b0101208>] (__irq_svc) from [<b0231e14>] (shrink_page_list+0x24/0x900)',
    '[<b0231e14>] (shrink_page_list) from [<b0233a00>] (shrink_inactive_list+0x1a0/0x4a0)',
  ],
  syzkaller: [
    'snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0',
    'Call Trace:',
    ' <IRQ>',
    ' __snd_pcm_xrun+0x1a/0x30 sound/core/pcm_lib.c:155',
    ' snd_pcm_period_elapsed+0x2c/0x40 sound/core/pcm_lib.c:1810',
    ' dummy_hrtimer_callback+0x91/0xd0 sound/drivers/dummy.c:387',
    ' __run_hrtimer kernel/time/hrtimer.c:1685 [inline]',
    ' __hrtimer_run_queues+0x112/0x2b0 kernel/time/hrtimer.c:1749',
    ' hrtimer_interrupt+0x10b/0x230 kernel/time/hrtimer.c:1811',
    ' sysvec_apic_timer_interrupt+0x93/0xc0 arch/x86/kernel/apic/apic.c:1100',
    ' </IRQ>',
    ' asm_sysvec_apic_timer_interrupt+0x12/0x20 arch/x86/include/asm/idtentry.h:632',
    'RIP: 0010:ext4_do_update_inode+0x1c9/0x250 fs/ext4/inode.c:516',
    ' ext4_mark_iloc_dirty+0x361/0x500 fs/ext4/inode.c:647',
  ],
  decoded: [
    'snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0',
    'Call Trace:',
    ' <IRQ>',
    ' ? __snd_pcm_xrun (sound/core/pcm_lib.c:155) ',
    ' snd_pcm_period_elapsed (sound/core/pcm_lib.c:1810) ',
    ' sysvec_apic_timer_interrupt (arch/x86/kernel/apic/apic.c:1100) ',
    ' </IRQ>',
    ' <TASK>',
    ' asm_sysvec_apic_timer_interrupt (arch/x86/include/asm/idtentry.h:632) ',
    'RIP: 0010:ext4_do_update_inode (fs/ext4/inode.c:516) ',
    ' ext4_mark_iloc_dirty (fs/ext4/inode.c:647) ',
  ],
};

const summary = (text: string): unknown => {
  const r = analyzeText(text);
  return r.events.map((e) => ({
    line: e.line,
    offender: e.offender,
    frames: e.frames.map((f) => [f.function, f.module, f.reliable, f.inline === true]),
  }));
};

for (const [name, lines] of Object.entries(DUMPS)) {
  test(`a frame wrapped at any space stays a frame: ${name}`, () => {
    const base = summary(lines.join('\n'));
    assert.equal((base as unknown[]).length, 1);
    lines.forEach((l, k) => {
      if (k === 0) return; // the header: covered above
      for (const i of spaces(l.trimEnd())) {
        if (l.slice(0, i).trim().length === 0) continue; // leading indentation is no wrap
        const wrapped = [
          ...lines.slice(0, k),
          l.slice(0, i),
          l.slice(i + 1),
          ...lines.slice(k + 1),
        ];
        assert.deepEqual(summary(wrapped.join('\n')), base, `${name}: line ${k} cut at ${i}: ${l}`);
      }
    });
  });
}

test('a wrap whose caller never prints again is settled, so the idle fast path resumes', () => {
  const a = createLogAnalyzer();
  a.push('[  10.000000][ T4242] ALSA: PCM: [Q] Lost interrupts?: (stream=0, delta=4000,');
  assert.equal(a.idle(), false);
  for (let i = 0; i < 600; i++)
    a.push(`[  10.${String(100000 + i)}][    C1] ordinary message ${i}`);
  assert.equal(a.idle(), true);
  const r = a.finish();
  // The cut-off header already said what it is: it is an event, numbered where it started.
  assert.deepEqual(
    r.events.map((e) => [e.line, e.kind]),
    [[1, 'hw_ptr_error']],
  );
});
