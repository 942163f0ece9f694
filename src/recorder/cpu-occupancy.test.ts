// Who had a CPU when: tasks from any event's comm-pid, nested interrupt/softirq/hrtimer
// contexts as their own segments, untraced contexts (IPIs) closed by the next task-context event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuOccupancy, occupantsBetween, priorities } from './cpu-occupancy.js';
import { parseTraceText } from './trace-line.js';

const text = [
  '              dd-150     [000] d..2.     1.000000: sched_waking: comm=aplay pid=100 prio=120 target_cpu=000',
  '              dd-150     [000] d.h1.     1.000100: irq_handler_entry: irq=33 name=snd_hda_intel:card0',
  '              dd-150     [000] ..s..     1.000150: softirq_entry: vec=9 [action=RCU]',
  '              dd-150     [000] ..s..     1.000250: softirq_exit: vec=9 [action=RCU]',
  '              dd-150     [000] d.h1.     1.000300: irq_handler_exit: irq=33 ret=handled',
  '              dd-150     [000] d.h2.     1.000400: sched_waking: comm=cat pid=178 prio=120 target_cpu=000',
  '              dd-150     [000] d..2.     1.000500: sched_switch: prev_comm=dd prev_pid=150 prev_prio=120 prev_state=R+ ==> next_comm=aplay next_pid=100 next_prio=120',
  '           aplay-100     [000] d..2.     1.000800: sched_switch: prev_comm=aplay prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120',
].join('\n');

test('segments: the task, a nested IRQ and softirq, idle', () => {
  const { events } = parseTraceText(text);
  const occ = cpuOccupancy(events, 0.9995, 1.001);
  const segs = occ
    .get(0)!
    .map((s) => [
      +(s.start * 1e6).toFixed(0),
      +(s.end * 1e6).toFixed(0),
      s.occupant.kind === 'task'
        ? s.occupant.comm
        : s.occupant.kind === 'idle'
          ? 'idle'
          : `${s.occupant.kind}:${s.occupant.name}`,
    ]);
  assert.deepEqual(segs, [
    [999500, 1000100, 'dd'], // known from the first event's comm-pid, back to the window start
    [1000100, 1000150, 'irq:snd_hda_intel:card0'],
    [1000150, 1000250, 'softirq:RCU'],
    [1000250, 1000300, 'irq:snd_hda_intel:card0'],
    [1000300, 1000500, 'dd'], // the h-flag wake at 1.000400 (an IPI) opens nothing
    [1000500, 1000800, 'aplay'],
    [1000800, 1001000, 'idle'],
  ]);
  const slice = occupantsBetween(occ, 0, 1.0002, 1.0006).map(
    (s) => +((s.end - s.start) * 1e6).toFixed(0),
  );
  assert.deepEqual(slice, [50, 50, 200, 100]);
  assert.deepEqual(occupantsBetween(occ, 1, 1.0, 1.001), [], 'no events on cpu 1: no segments');
});

test('priorities come from switch and wake-up events', () => {
  const { events } = parseTraceText(text);
  const p = priorities(events);
  assert.equal(p.get(100), 120);
  assert.equal(p.get(150), 120);
});

test('an interrupt entered before the window is closed by its exit; an untraced one by a task event', () => {
  const { events } = parseTraceText(
    [
      '              dd-150     [000] d.h1.     1.000100: irq_handler_exit: irq=33 ret=handled',
      '              dd-150     [000] d.h2.     1.000200: sched_waking: comm=cat pid=178 prio=120 target_cpu=000',
      '              dd-150     [000] d..2.     1.000300: sched_waking: comm=cat pid=178 prio=120 target_cpu=000',
    ].join('\n'),
  );
  const segs = cpuOccupancy(events, 1.0, 1.0004).get(0)!;
  assert.deepEqual(
    segs.map((s) => s.occupant.kind),
    ['irq', 'task'],
  );
  assert.equal(segs[0]!.end, 1.0001);
});
