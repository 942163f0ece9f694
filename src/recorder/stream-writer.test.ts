// Finding the writer without being told: the task the sound interrupt path wakes most often.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inferWriter } from './stream-writer.js';
import { parseTraceText } from './trace-line.js';
import type { XrunHit } from './breakdown-types.js';

const sound = (e: { name: string; fields: Readonly<Record<string, string>> }) =>
  e.name === 'irq_handler_entry' && e.fields['irq'] === '33';

test('threaded: the IRQ thread wakes aplay each period and a kworker once; aplay is the writer', () => {
  const { events } = parseTraceText(
    [
      ' irq/33-snd_hda_-159     [000] D..4.     1.000100: sched_waking: comm=aplay pid=180 prio=120 target_cpu=000',
      ' irq/33-snd_hda_-159     [000] D..5.     1.000110: sched_wakeup: comm=aplay pid=180 prio=120 target_cpu=000',
      ' irq/33-snd_hda_-159     [000] D..4.     1.000900: sched_waking: comm=kworker/0:2 pid=59 prio=120 target_cpu=000',
      ' irq/33-snd_hda_-159     [000] D..4.     1.001400: sched_waking: comm=aplay pid=180 prio=120 target_cpu=000',
      '              dd-179     [000] d..2.     1.001500: sched_waking: comm=cat pid=178 prio=120 target_cpu=000',
    ].join('\n'),
  );
  const hit: XrunHit = { cpu: 0, ts: 1.002, comm: 'irq/33-snd_hda_', pid: 159, flags: 'D..1.' };
  assert.deepEqual(inferWriter(events, hit, 'irq-thread', sound), {
    pid: 180,
    comm: 'aplay',
    wakeups: 2,
  });
});

test('hard IRQ: a wake-up inside the sound handler counts, one inside another handler does not', () => {
  const { events } = parseTraceText(
    [
      '              dd-179     [000] d.h1.     1.000000: irq_handler_entry: irq=25 name=virtio0-requests',
      '              dd-179     [000] d.h4.     1.000010: sched_waking: comm=cat pid=178 prio=120 target_cpu=000',
      '              dd-179     [000] d.h1.     1.000020: irq_handler_exit: irq=25 ret=handled',
      '              dd-179     [000] d.h1.     1.000100: irq_handler_entry: irq=33 name=snd_hda_intel:card0',
      '              dd-179     [000] d.h4.     1.000110: sched_waking: comm=aplay pid=166 prio=120 target_cpu=000',
      '              dd-179     [000] d.h1.     1.000120: irq_handler_exit: irq=33 ret=handled',
    ].join('\n'),
  );
  const hit: XrunHit = { cpu: 0, ts: 1.002, comm: 'dd', pid: 179, flags: 'd.h2.' };
  assert.equal(inferWriter(events, hit, 'hardirq', sound)?.pid, 166);
});

test('snd-dummy: a wake-up inside the dummy hrtimer callback (softirq) counts', () => {
  const { events } = parseTraceText(
    [
      '     ksoftirqd/1-21      [001] ..s..     1.000000: hrtimer_expire_entry: hrtimer=(____ptrval____) function=dummy_hrtimer_callback [snd_dummy] now=1',
      '     ksoftirqd/1-21      [001] d.s4.     1.000010: sched_waking: comm=aplay pid=171 prio=120 target_cpu=000',
      '     ksoftirqd/1-21      [001] ..s..     1.000020: hrtimer_expire_exit: hrtimer=(____ptrval____)',
      '     ksoftirqd/1-21      [001] d.s4.     1.000030: sched_waking: comm=rcu_preempt pid=15 prio=120 target_cpu=000',
    ].join('\n'),
  );
  const hit: XrunHit = { cpu: 1, ts: 1.002, comm: 'ksoftirqd/1', pid: 21, flags: 'd.s1.' };
  assert.equal(inferWriter(events, hit, 'softirq', () => false)?.comm, 'aplay');
  assert.equal(
    inferWriter([], hit, 'softirq', () => false),
    undefined,
  );
});

test('a lost hrtimer_expire_exit does not outlive its softirq: later wake-ups are not the sound timer', () => {
  // The shape found with PipeWire on snd-dummy: the dummy callback's exit was lost, the softirq
  // ended, then PipeWire's data thread woke pw-play three times (outside any sound context).
  const line = (ts: string, rest: string): string =>
    `     ksoftirqd/1-21      [001] ..s..     ${ts}: ${rest}`;
  const { events } = parseTraceText(
    [
      line('1.000000', 'softirq_entry: vec=8 [action=HRTIMER]'),
      line(
        '1.000001',
        'hrtimer_expire_entry: hrtimer=(____ptrval____) function=dummy_hrtimer_callback [snd_dummy] now=1',
      ),
      line('1.000010', 'sched_waking: comm=pipewire pid=168 prio=120 target_cpu=001'),
      line('1.000030', 'softirq_exit: vec=8 [action=HRTIMER]'),
      '        pipewire-168     [001] d..2.     1.000300: sched_waking: comm=pw-play pid=190 prio=120 target_cpu=001',
      '        pipewire-168     [001] d..2.     1.000600: sched_waking: comm=pw-play pid=190 prio=120 target_cpu=001',
      '        pipewire-168     [001] d..2.     1.000900: sched_waking: comm=pw-play pid=190 prio=120 target_cpu=001',
    ].join('\n'),
  );
  const hit: XrunHit = { cpu: 1, ts: 1.002, comm: 'pipewire', pid: 168, flags: 'd..1.' };
  assert.equal(inferWriter(events, hit, 'process', () => false)?.comm, 'pipewire');
});
