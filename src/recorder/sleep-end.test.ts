// How a sleep ended, on constructed traces in the lab kernels' grammar: the context around the
// sleeper's sched_waking decides (its own timer, the sound path, anything else).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TraceEvent, XrunHit } from './breakdown-types.js';
import { sleepEnd, type SoundContext } from './sleep-end.js';
import { parseTraceText } from './trace-line.js';

function L(ts: number, cpu: number, task: string, flags: string, body: string): string {
  return `${task.padStart(16)} [${String(cpu).padStart(3, '0')}] ${flags} ${ts.toFixed(6)}: ${body}`;
}
const waking = (ts: number, cpu: number, cur: string, flags: string): string =>
  L(ts, cpu, cur, flags, 'sched_waking: comm=xrunhunt-play pid=300 prio=29 target_cpu=000');
const out = L(
  1.0,
  0,
  'xrunhunt-play-300',
  'd..2.',
  'sched_switch: prev_comm=xrunhunt-play prev_pid=300 prev_prio=29 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120',
);
const hit: XrunHit = { cpu: 0, ts: 1.005, comm: '<idle>-0', pid: 0, flags: 'd.h2.' };

function end(lines: string[], h: XrunHit = hit) {
  const { events } = parseTraceText([out, ...lines].join('\n'));
  const sound: SoundContext = {
    isSound: (e: TraceEvent) =>
      e.name === 'irq_handler_entry' && (e.fields['name'] ?? '').startsWith('snd_hda'),
    hit: h,
  };
  return sleepEnd(events, 300, 1.0, sound);
}

test('its own timer: woken inside hrtimer_wakeup, with the arming it did before the sleep', () => {
  const { events } = parseTraceText(
    [
      L(
        0.99999,
        0,
        'xrunhunt-play-300',
        'd..1.',
        'hrtimer_start: hrtimer=00000000aa function=hrtimer_wakeup expires=1020000100 softexpires=1020000000 mode=ABS',
      ),
      out,
      L(
        1.0201,
        0,
        '<idle>-0',
        'd.h1.',
        'hrtimer_expire_entry: hrtimer=00000000aa function=hrtimer_wakeup now=1020100000',
      ),
      waking(1.02011, 0, '<idle>-0', 'd.h2.'),
      L(1.02012, 0, '<idle>-0', 'd.h1.', 'hrtimer_expire_exit: hrtimer=00000000aa'),
    ].join('\n'),
  );
  const e = sleepEnd(events, 300, 1.0, { isSound: () => false, hit });
  assert.ok(e);
  assert.equal(e.by, 'own-timer');
  assert.equal(e.wokenBy, 'hrtimer_wakeup');
  assert.equal(e.to, 1.02011);
  assert.equal(e.armedTs, 0.99999);
  assert.ok(Math.abs(e.askedUntil! - 1.02) < 1e-9, 'the soft expiry');
  assert.equal(e.expiredTs, 1.0201);
});

test('the sound path: inside the sound interrupt, from its IRQ thread, or the detector’s stop', () => {
  const irq = L(
    1.005,
    0,
    '<idle>-0',
    'd.h1.',
    'irq_handler_entry: irq=33 name=snd_hda_intel:card0',
  );
  const exit = L(1.00503, 0, '<idle>-0', 'd.h1.', 'irq_handler_exit: irq=33 ret=handled');
  assert.deepEqual(
    (({ by, wokenBy }) => ({ by, wokenBy }))(
      end([irq, waking(1.00502, 0, '<idle>-0', 'd.h3.'), exit])!,
    ),
    { by: 'sound', wokenBy: 'snd_hda_intel:card0' },
  );
  // threadirqs: the handler wakes irq/33-snd_hda_, which wakes the writer in task context.
  const thread = end([irq, exit, waking(1.0051, 1, 'irq/33-snd_hda_-159', 'd..3.')]);
  assert.equal(thread?.by, 'sound');
  // Process-context detection by another task: its wake-up after the hit is the XRUN's stop.
  const det: XrunHit = { cpu: 1, ts: 1.005, comm: 'pipewire', pid: 400, flags: 'd..1.' };
  assert.equal(end([waking(1.00501, 1, 'pipewire-400', 'd..3.')], det)?.by, 'sound');
  // A sound driver's hrtimer (snd-dummy) is the sound path too.
  const dummy = end([
    L(
      1.004,
      0,
      '<idle>-0',
      'd.h1.',
      'hrtimer_expire_entry: hrtimer=00000000ee function=dummy_hrtimer_callback now=1004000000',
    ),
    waking(1.00401, 0, '<idle>-0', 'd.h2.'),
  ]);
  assert.deepEqual([dummy?.by, dummy?.wokenBy], ['sound', 'hrtimer dummy_hrtimer_callback']);
});

test('anything else is named, not judged; no wake-up recorded is no answer', () => {
  const other = end([waking(1.01, 1, 'node-163', 'd..3.')]);
  assert.deepEqual([other?.by, other?.wokenBy], ['other', 'node (pid 163)']);
  const timerSoftirq = end([
    L(1.01, 0, '<idle>-0', '..s1.', 'softirq_entry: vec=1 [action=TIMER]'),
    waking(1.01001, 0, '<idle>-0', '..s3.'),
  ]);
  assert.deepEqual([timerSoftirq?.by, timerSoftirq?.wokenBy], ['own-timer', 'softirq TIMER']);
  assert.equal(end([]), undefined);
});
