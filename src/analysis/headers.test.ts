import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isForeignHeader, matchAlsaHeader as matchWithEntry, parseFtraceLine } from './headers.js';

/** The header without the catalogue entry id (asserted separately in message-catalogue.test.ts). */
function matchAlsaHeader(
  body: string,
): { kind: string; pcm: string | null; incomplete: boolean } | null {
  const h = matchWithEntry(body);
  return h ? { kind: h.kind, pcm: h.pcm, incomplete: h.incomplete } : null;
}

test('XRUN headers of every era', () => {
  const cases: [string, string | null][] = [
    ['XRUN: pcmC0D0p', 'pcmC0D0p'],
    ['ALSA sound/core/pcm_lib.c:169: XRUN: pcmC0D0p', 'pcmC0D0p'],
    [
      'ALSA /usr/src/alsa-cvs-1.0.5/alsa-driver/alsa-kernel/core/pcm_lib.c:169: XRUN: pcmC0D2c',
      'pcmC0D2c',
    ],
    ['ALSA sound/core/pcm_lib.c:184: XRUN: pcmC0D0p:0', 'pcmC0D0p:0'],
    ['ALSA sound/core/pcm_lib.c:184 XRUN: pcmC1D3c:2', 'pcmC1D3c:2'],
    ['snd_firewire_motu fw1.0: XRUN: pcmC0D0p:0', 'pcmC0D0p:0'],
    ['snd_hda_intel 0000:00:1b.0: XRUN: pcmC0D0p:0   ', 'pcmC0D0p:0'],
    ['xrun: [0]occured XRUN!', null],
  ];
  for (const [body, pcm] of cases)
    assert.deepEqual(matchAlsaHeader(body), { kind: 'xrun', pcm, incomplete: false }, body);
  assert.deepEqual(matchAlsaHeader('ALSA sound/core/pcm_lib.c:169: XRUN:'), {
    kind: 'xrun',
    pcm: null,
    incomplete: true,
  });
});

test('invalid position is not an xrun', () => {
  for (const [body, pcm] of [
    [
      'snd_x dev: XRUN: pcmC0D0p:0, pos = 4096, buffer size = 4096, period size = 1024',
      'pcmC0D0p:0',
    ],
    [
      'snd_x dev: invalid position: pcmC0D0p:0, pos = 5000, buffer size = 4096, period size = 1024',
      'pcmC0D0p:0',
    ],
    ['BUG: stream = 0, pos = 0x1000, buffer size = 0x1000, period size = 0x400', null],
    [
      'ALSA sound/core/pcm_lib.c:300: BUG: pcmC0D0p:0, pos = 4096, buffer size = 4096, period size = 1024',
      'pcmC0D0p:0',
    ],
  ] as const) {
    assert.deepEqual(
      matchAlsaHeader(body),
      { kind: 'invalid_position', pcm, incomplete: false },
      body,
    );
  }
});

test('hw-pointer diagnostics of every era', () => {
  for (const body of [
    'ALSA sound/core/pcm_lib.c:155: Unexpected hw_pointer value (stream = 0, delta: -4095, max jitter = 8192): wrong interrupt acknowledge?',
    'PCM: Unexpected hw_pointer value [2] (stream=0, pos=1, old_ptr=2, jdelta=3)',
    'PCM: hw_ptr skipping! [Q] (pos=1, delta=2, period=3, jdelta=4/5/6, hw_ptr=7/8)',
    'ALSA sound/core/pcm_lib.c:1234: PCM: Lost interrupts? [Q] (stream=0, delta=1, new_hw_ptr=2, old_hw_ptr=3)',
    'ALSA: PCM: Lost interrupts? [Q] (stream=0, delta=1, new_hw_ptr=2, old_hw_ptr=3)',
    'ALSA: PCM: [Q] Lost interrupts?: (stream=1, delta=6576, new_hw_ptr=4943792, old_hw_ptr=4937216)',
    'ALSA: PCM: [P] Unexpected hw_ptr: (stream=0, pos=1, new_hw_ptr=2, old_hw_ptr=3)',
    'ALSA: PCM: [Q] hw_ptr skipping: (pos=1, delta=2, period=3, jdelta=4/5/6, hw_ptr=7/8)',
  ]) {
    assert.equal(matchAlsaHeader(body)?.kind, 'hw_ptr_error', body);
  }
  assert.equal(
    matchAlsaHeader('Unexpected hw_pointer value [1] (stream = 1, delta: -16, max jitter =')
      ?.incomplete,
    true,
  );
});

test('non-headers', () => {
  for (const body of [
    'hwptr log: pcmC0D0p:0: j=1, pos=1/2/3, hwptr=4/5',
    'period_update: pcmC0D0p:0: pos=0x1/0x2/0x3, hwptr=0x4',
    'ata1: lost interrupt (Status 0x50)',
    'snd_usb_audio: XRUN: buffer underrun in some driver text',
    'random: crng init done',
  ]) {
    assert.equal(matchAlsaHeader(body), null, body);
  }
});

test('foreign report headers', () => {
  for (const body of [
    '------------[ cut here ]------------',
    'WARNING: CPU: 1 PID: 796 at drivers/x.c:2546 f+0x92/0xf0 [amdgpu]',
    'BUG: kernel NULL pointer dereference, address: 000000000000007c',
    'bad: scheduling from the idle thread!',
    'INFO: task ip:6024 blocked for more than 120 seconds.',
    'watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [WorkerPool/7703:7703]',
    'rcu: INFO: rcu_sched self-detected stall on CPU',
    'Kernel panic - not syncing: Fatal exception',
    'stack backtrace:',
    '(jackd/6219): 10943us non-preemptible critical section violated 1000 us preempt threshold',
    'sof-audio-pci 0000:00:1f.3: stack dump from 0xbe04c0f0',
    'snd_pcm_update_hw_ptr0: 148 callbacks suppressed',
    '============================================',
  ]) {
    assert.equal(isForeignHeader(body), true, body);
  }
  assert.equal(isForeignHeader(' ======================='), false, 'i386 4K-stack split');
});

test('ftrace lines', () => {
  assert.deepEqual(
    parseFtraceLine(
      '          insmod-297     [000] d.s1.    92.385517: xrun: (__snd_pcm_xrun+0x0/0xc0)',
    ),
    {
      kind: 'xrun',
      pcm: null,
      time: 92.385517,
      who: 'insmod-297 [000]',
    },
  );
  assert.deepEqual(
    parseFtraceLine(
      '            node-301     [001] d.h2.   215.000100: xrun: (snd_pcm_stop+0x0/0x30) state=4',
    ),
    { kind: 'xrun', pcm: null, time: 215.0001, who: 'node-301 [001]' },
    'the snd_pcm_stop fallback probe at an XRUN',
  );
  assert.deepEqual(
    parseFtraceLine(
      '           <idle>-0       [001] d.h2.   120.500001: xrun: (__snd_pcm_xrun+0x0/0xc0) card=0 dev=0 sub=0 stream=0 cardid="Dummy"',
    ),
    { kind: 'xrun', pcm: 'pcmC0D0p/sub0', time: 120.500001, who: '<idle>-0 [001]' },
    'fetch args name the stream',
  );
  assert.deepEqual(
    parseFtraceLine(
      '            node-301     [001] .....   215.000100: xrun: (snd_pcm_stop+0x0/0x30) state=1',
    ),
    { kind: 'other', who: 'node-301 [001]' },
    'snd_pcm_stop to another state is not an xrun',
  );
  assert.deepEqual(
    parseFtraceLine(
      '  aplay-26187 [004] d..3  4012.834761: xrun: pcmC0D0p/sub0: XRUN: old=1, base=2, period=3, buf=4',
    ),
    {
      kind: 'xrun',
      pcm: 'pcmC0D0p/sub0',
      time: 4012.834761,
      who: 'aplay-26187 [004]',
    },
  );
  assert.deepEqual(
    parseFtraceLine('          insmod-297     [000] d.s1.    92.385520: <stack trace>'),
    { kind: 'stack-start', who: 'insmod-297 [000]' },
  );
  assert.deepEqual(
    parseFtraceLine(
      '178.110224: hwptr:   pcmC0D0p/sub0: POS: pos=24, old=0, base=0, period=128, buf=256',
    ),
    {
      kind: 'other',
      who: null,
    },
  );
  assert.equal(parseFtraceLine('XRUN: pcmC0D0p'), null);
});

test('kprobe variants: any entry offset, return probes', () => {
  assert.deepEqual(
    parseFtraceLine(
      '  aplay-512 [001] d.h1. 93.001277: p_xrun_0: (__snd_pcm_xrun+0x4/0xc0 [snd_pcm])',
    ),
    { kind: 'xrun', pcm: null, time: 93.001277, who: 'aplay-512 [001]' },
  );
  assert.deepEqual(
    parseFtraceLine(
      '  aplay-512 [001] d.h1. 93.001277: r_xrun: (snd_pcm_update_state+0x10e/0x120 <- __snd_pcm_xrun)',
    ),
    { kind: 'xrun', pcm: null, time: 93.001277, who: 'aplay-512 [001]' },
  );
  assert.deepEqual(
    parseFtraceLine('  aplay-512 [001] d.h1. 93.001277: p_stop: (snd_pcm_stop+0x0/0x20)'),
    { kind: 'other', who: 'aplay-512 [001]' },
  );
});
