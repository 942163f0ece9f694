// One thread's states from the scheduler events, with the state before its first event read
// off that event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stateAt, threadTimeline } from './thread-states.js';
import { parseTraceText } from './trace-line.js';

const lines = [
  ' irq/33-snd_hda_-159     [000] D..4.     1.000100: sched_waking: comm=aplay pid=180 prio=120 target_cpu=000',
  ' irq/33-snd_hda_-159     [000] D..5.     1.000110: sched_wakeup: comm=aplay pid=180 prio=120 target_cpu=000',
  ' irq/33-snd_hda_-159     [000] d..2.     1.000200: sched_switch: prev_comm=irq/33-snd_hda_ prev_pid=159 prev_prio=49 prev_state=S ==> next_comm=aplay next_pid=180 next_prio=120',
  '           aplay-180     [000] d..2.     1.000500: sched_switch: prev_comm=aplay prev_pid=180 prev_prio=120 prev_state=R+ ==> next_comm=dd next_pid=179 next_prio=120',
  '              dd-179     [000] d..2.     1.000700: sched_switch: prev_comm=dd prev_pid=179 prev_prio=120 prev_state=R+ ==> next_comm=aplay next_pid=180 next_prio=120',
  '           aplay-180     [000] d..2.     1.000900: sched_switch: prev_comm=aplay prev_pid=180 prev_prio=120 prev_state=S ==> next_comm=dd next_pid=179 next_prio=120',
];

test('sleeping → woken (one wake-up for waking+wakeup) → running → preempted → running → asleep', () => {
  const { events } = parseTraceText(lines.join('\n'));
  const tl = threadTimeline(events, 180, 1.0, 1.001);
  assert.equal(tl.comm, 'aplay');
  assert.equal(tl.unseen, false);
  assert.deepEqual(
    tl.segments.map((s) => [
      s.state,
      +(s.start * 1e6).toFixed(0),
      +(s.end * 1e6).toFixed(0),
      s.cpu,
    ]),
    [
      ['sleeping', 1000000, 1000100, undefined],
      ['runnable', 1000100, 1000200, 0],
      ['running', 1000200, 1000500, 0],
      ['runnable', 1000500, 1000700, 0],
      ['running', 1000700, 1000900, 0],
      ['sleeping', 1000900, 1001000, 0],
    ],
  );
  assert.deepEqual(tl.wakeups, [{ ts: 1.0001, cpu: 0, by: { comm: 'irq/33-snd_hda_', pid: 159 } }]);
  assert.equal(stateAt(tl, 1.0006)?.state, 'runnable');
});

test('the state before the first event: switched out → it was running; seen current → running', () => {
  const { events } = parseTraceText(lines.slice(3).join('\n'));
  const tl = threadTimeline(events, 180, 1.0, 1.001);
  assert.equal(tl.segments[0]!.state, 'running');
  assert.equal(tl.segments[0]!.start, 1.0);
  const idle = threadTimeline(events, 999, 1.0, 1.001);
  assert.equal(idle.unseen, true);
  assert.deepEqual(
    idle.segments.map((s) => s.state),
    ['unknown'],
  );
});
