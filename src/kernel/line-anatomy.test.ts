import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLogLine } from './line-anatomy.js';

test('plain printk timestamp and caller id', () => {
  const l = parseLogLine('[  684.958838][ T2486] ALSA: PCM: [Q] Lost interrupts?: (stream=1)');
  assert.equal(l.time, 684.958838);
  assert.equal(l.caller, 'T2486');
  assert.equal(l.body, 'ALSA: PCM: [Q] Lost interrupts?: (stream=1)');
  assert.equal(l.transport, 'none');
});

test('decode_stacktrace collapsed prefix keeps the frame text', () => {
  const l = parseLogLine('[ 59.627229][ C0] ? __warn (kernel/panic.c:673) ');
  assert.equal(l.caller, 'C0');
  assert.equal(l.body, '? __warn (kernel/panic.c:673) ');
});

test('syslog with localized non-ASCII months and a printk timestamp', () => {
  const a = parseLogLine(
    'ápr 11 18:24:22 daniel-Nitro-AN515-43 kernel:  brightness_store+0x61/0x80',
  );
  assert.equal(a.transport, 'syslog');
  assert.equal(a.host, 'daniel-Nitro-AN515-43');
  assert.equal(a.body, ' brightness_store+0x61/0x80');
  const b = parseLogLine(
    'Sep  3 04:35:13 smseagle kernel: [44662.473959] [<c03fb768>] (a) from [<c03fdb28>] (b+0x2/0x4)',
  );
  assert.equal(b.time, 44662.473959);
  assert.equal(b.body, '[<c03fb768>] (a) from [<c03fdb28>] (b+0x2/0x4)');
  const c = parseLogLine('Jul 13 14:36:16 mindpipe kernel:');
  assert.equal(c.body, '');
  const other = parseLogLine('ápr 11 18:24:22 host systemd-backlight[796]: amdgpu_bl0: Failed');
  assert.equal(other.foreign, true);
});

test('journalctl short-monotonic and short-iso', () => {
  const m = parseLogLine('[ 4899.499865] kernel: BUG: kernel NULL pointer dereference');
  assert.equal(m.transport, 'journal-monotonic');
  assert.equal(m.time, 4899.499865);
  assert.equal(m.body, 'BUG: kernel NULL pointer dereference');
  const i = parseLogLine('2021-04-11T18:24:22+0200 host kernel: XRUN: pcmC0D0p:0');
  assert.equal(i.transport, 'syslog');
  assert.equal(i.body, 'XRUN: pcmC0D0p:0');
});

test('dmesg -T (localized) and dmesg -H', () => {
  assert.equal(
    parseLogLine('[v ápr 11 18:24:21 2021] RIP: 0010:x+0x1/0x2').body,
    'RIP: 0010:x+0x1/0x2',
  );
  assert.equal(parseLogLine('[Thu Oct  7 12:44:01 2021] Call Trace:').body, 'Call Trace:');
  const h = parseLogLine('[Apr30 19:31] snd_firewire_motu fw1.0: XRUN: pcmC0D0p:0');
  assert.equal(h.transport, 'dmesg-H');
  assert.equal(h.body, 'snd_firewire_motu fw1.0: XRUN: pcmC0D0p:0');
  assert.equal(
    parseLogLine('[  +0.000006] CPU: 3 PID: 0 Comm: swapper/3').body,
    'CPU: 3 PID: 0 Comm: swapper/3',
  );
});

test('raw /dev/kmsg records and their dictionary lines', () => {
  const r = parseLogLine('4,311,6790393,-; dump_stack_lvl+0x4c/0x63');
  assert.equal(r.transport, 'kmsg');
  assert.equal(r.level, 4);
  assert.equal(r.time, 6.790393);
  assert.equal(r.body, ' dump_stack_lvl+0x4c/0x63');
  assert.equal(parseLogLine(' DEVICE=+platform:snd_dummy.0', true).transport, 'kmsg-dict');
  // Without a preceding record, an indented KEY=VALUE line is ordinary text.
  assert.equal(parseLogLine(' DEVICE=+platform:snd_dummy.0', false).transport, 'none');
  assert.equal(parseLogLine('12,5,1,c;x').kmsgContinuation, true);
});

test('mail quoting of any depth, console level, dmesg -x, colours', () => {
  const q = parseLogLine('> > [  199.422773] bad: scheduling from the idle thread!');
  assert.equal(q.quoteDepth, 2);
  assert.equal(q.body, 'bad: scheduling from the idle thread!');
  assert.equal(parseLogLine('>> XRUN: pcmC0D0p').body, 'XRUN: pcmC0D0p');
  assert.equal(parseLogLine('<4>[   12.000001] XRUN: pcmC0D0p').level, 4);
  assert.equal(parseLogLine('kern  :warn  : [   12.000001] XRUN: pcmC0D0p').body, 'XRUN: pcmC0D0p');
  assert.equal(
    parseLogLine('\u001b[32m[   12.000001]\u001b[0m XRUN: pcmC0D0p').body,
    'XRUN: pcmC0D0p',
  );
});

test('continuation and frame lines keep their leading spaces', () => {
  assert.equal(
    parseLogLine('               Non-periodic Split Transactions').body.startsWith(' '),
    true,
  );
  assert.equal(parseLogLine('[  133.738588]  </IRQ>').body, ' </IRQ>');
});

test('vendor caller prefix and dmesg -H single-digit day', () => {
  const m = parseLogLine('[  123.456789] (0)[123:kworker/0:1]XRUN: pcmC0D0p:0');
  assert.equal(m.caller, 'T123');
  assert.equal(m.body, 'XRUN: pcmC0D0p:0');
  assert.equal(parseLogLine('[May 1 08:02] usb 1-1: new device').body, 'usb 1-1: new device');
});

test('journalctl in CJK locales (month written with digits)', () => {
  const z = parseLogLine('11月 29 18:02:13 labvm kernel: XRUN: pcmC0D0p:0');
  assert.equal(z.transport, 'syslog');
  assert.equal(z.body, 'XRUN: pcmC0D0p:0');
  assert.equal(
    parseLogLine('11월 29 18:02:13 labvm kernel:  dump_stack+0x1/0x2').body,
    ' dump_stack+0x1/0x2',
  );
  assert.equal(parseLogLine('9ms non-preemptible critical section violated').transport, 'none');
});

test('an indented printk timestamp in a pasted excerpt is still the timestamp', () => {
  const l = parseLogLine(
    '> >   [161644.076666] snd_echo3g 0000:09:02.0: invalid position: , pos = 4096, buffer size = 4096, period size = 64',
  );
  assert.equal(l.quoteDepth, 2);
  assert.equal(l.time, 161644.076666);
  assert.ok(l.body.startsWith('snd_echo3g 0000:09:02.0: invalid position:'));
  // An indented frame is not a timestamp: its indentation stays (it marks the frame).
  assert.equal(
    parseLogLine(' [<c0105f3e>] dump_stack+0x1e/0x30').body,
    ' [<c0105f3e>] dump_stack+0x1e/0x30',
  );
});
