// The stream's period interrupts and the stretches where one came late, with whether the CPU
// was silent (interrupts off, or the CPU not running) or busy with interrupts on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  lateIrqSlack,
  lateIrqStretches,
  reschedPending,
  soundIrqMatcher,
  tickSeconds,
} from './sound-irq.js';
import { parseTraceText } from './trace-line.js';
import type { XrunHit } from './breakdown-types.js';

const P = 0.001;
const entry = (ts: number, cur = 'dd-150', irq = '33 name=snd_hda_intel:card0') =>
  `${cur.padStart(16)} [000] d.h1. ${ts.toFixed(6)}: irq_handler_entry: irq=${irq}`;
const tick = (ts: number) =>
  `          dd-150 [000] d.h1. ${ts.toFixed(6)}: hrtimer_expire_entry: hrtimer=(____ptrval____) function=tick_sched_timer now=1`;
const hit: XrunHit = { cpu: 0, ts: 2, comm: 'irq/33-snd_hda_', pid: 159, flags: 'D..1.' };

test('which interrupts are the sound card’s: given names, an IRQ thread’s number, a sound hrtimer', () => {
  const { events } = parseTraceText(
    [
      entry(1.0),
      entry(1.0005, 'dd-150', '25 name=virtio0-requests'),
      '     ksoftirqd/1-21 [001] ..s.. 1.000700: hrtimer_expire_entry: hrtimer=(____ptrval____) function=dummy_hrtimer_callback [snd_dummy] now=1',
    ].join('\n'),
  );
  const byThread = soundIrqMatcher(events, hit, { periodSeconds: P, bufferSeconds: 2 * P });
  assert.deepEqual(events.map(byThread), [true, false, true]);
  const byName = soundIrqMatcher(
    events,
    { ...hit, comm: 'aplay' },
    { periodSeconds: P, bufferSeconds: 2 * P, irqNames: ['virtio0-requests'] },
  );
  assert.deepEqual(events.map(byName), [false, true, true]);
});

test('a late interrupt with a silent CPU in between is irqs-off; a busy CPU is not', () => {
  // Due 1.001; came 1.011 after 10 ms of silence (longer than the 4 ms default tick).
  const off = parseTraceText([entry(1.0), entry(1.011)].join('\n')).events;
  const [s] = lateIrqStretches(off, (e) => e.name === 'irq_handler_entry', P);
  assert.deepEqual([s!.due, s!.came, s!.irqsOff], [1.001, 1.011, true]);
  assert.deepEqual([s!.silentFrom, s!.silentTo], [1.0, 1.011]);
  // The same gap with ticks every 1 ms: interrupts were on (the device was late).
  const busy = [entry(1.0)];
  for (let t = 1.001; t < 1.0105; t += 0.001) busy.push(tick(t));
  busy.push(entry(1.011));
  const on = lateIrqStretches(
    parseTraceText(busy.join('\n')).events,
    (e) => e.name === 'irq_handler_entry',
    P,
  );
  assert.equal(on[0]!.irqsOff, false);
  // On time (within the slack): no stretch.
  const ok = parseTraceText([entry(1.0), entry(1.0 + P + lateIrqSlack(P) * 0.9)].join('\n')).events;
  assert.deepEqual(
    lateIrqStretches(ok, () => true, P),
    [],
  );
});

test('the tick interval is read from the window, else the 4 ms of Debian’s HZ=250', () => {
  const { events } = parseTraceText([tick(1.0), tick(1.001), tick(1.002)].join('\n'));
  assert.ok(Math.abs(tickSeconds(events, 0) - 0.001) < 1e-9);
  assert.equal(tickSeconds(events, 1), 0.004);
});

test('reschedPending: need-resched set and no switch since', () => {
  const { events } = parseTraceText(
    [
      '          insmod-200 [000] dNh4. 1.000000: sched_wakeup: comm=irq/33-snd_hda_ pid=50 prio=49 target_cpu=000',
      '          insmod-200 [000] d..2. 1.002000: sched_switch: prev_comm=insmod prev_pid=200 prev_prio=120 prev_state=R+ ==> next_comm=irq/33-snd_hda_ next_pid=50 next_prio=49',
      '          insmod-200 [001] dn.h4.. 1.000000: sched_wakeup: comm=x pid=5 prio=49 target_cpu=001',
    ].join('\n'),
  );
  assert.equal(reschedPending(events, 0, 1.001), true);
  assert.equal(reschedPending(events, 0, 1.003), false, 'it switched');
  assert.equal(reschedPending(events, 1, 1.001), true, 'PREEMPT_RT flags');
});
