import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { explainRecorderWindows } from './explain-windows.js';
import { RecorderWindows, DEFAULT_WINDOW_LIMITS } from '../run/recorder-windows.js';

// A real recorder capture from the lab (see test/fixtures/recorder-probe/), cut into windows by
// the recorder probe's own window keeper, then explained: every window must yield one breakdown
// whose parts add up, and a hit line that is not in its window is counted, not invented.
const fixtureDir = new URL('../../test/fixtures/recorder-probe/', import.meta.url);

test('recorder windows cut from a real capture become one breakdown each, parts adding up to 100 %', () => {
  const text = readFileSync(new URL('hda-threadirq-excerpt.txt', fixtureDir), 'utf8');
  const kept = new RecorderWindows(() => 0.05, DEFAULT_WINDOW_LIMITS);
  for (const line of text.split('\n')) kept.push(line);
  kept.finish();
  const windows = kept.windows();
  assert.ok(windows.length > 0, 'the fixture has hits');
  const timing = { periodSeconds: 64 / 48000, bufferSeconds: 128 / 48000 };
  const r = explainRecorderWindows(windows, timing);
  assert.equal(r.unreadable, 0);
  assert.equal(r.breakdowns.length, windows.length);
  assert.equal(r.summary.xruns, windows.length);
  for (const b of r.breakdowns) {
    const sum = b.parts.reduce((s, p) => s + p.share, 0);
    if (b.parts.length > 0) assert.ok(Math.abs(sum - 1) < 1e-6, `shares sum to ${sum}`);
    assert.ok(b.latenessMs >= 0);
  }
});

test('a window whose hit line is missing is counted as unreadable', () => {
  const r = explainRecorderWindows(
    [
      {
        hit: { ts: 12.5, cpu: 0 },
        lines: [
          '          <idle>-0       [000] d..2.    12.400000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=aplay next_pid=180 next_prio=120',
        ],
      },
    ],
    { periodSeconds: 0.001, bufferSeconds: 0.002 },
  );
  assert.equal(r.unreadable, 1);
  assert.equal(r.breakdowns.length, 0);
});

test('a window keeps what came after its hit, so a writer asleep at the hit is seen waking by its own timer', () => {
  const L = (ts: number, task: string, flags: string, body: string): string =>
    `${task.padStart(16)} [000] ${flags} ${ts.toFixed(6)}: ${body}`;
  const kept = new RecorderWindows(() => 0.05, DEFAULT_WINDOW_LIMITS);
  const lines = [
    L(
      0.995,
      'xrunhunt-play-300',
      'd..1.',
      'hrtimer_start: hrtimer=00000000aa function=hrtimer_wakeup expires=1015000000 softexpires=1015000000 mode=ABS',
    ),
    L(
      0.99501,
      'xrunhunt-play-300',
      'd..2.',
      'sched_switch: prev_comm=xrunhunt-play prev_pid=300 prev_prio=29 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120',
    ),
    L(0.998, '<idle>-0', 'd.h1.', 'irq_handler_entry: irq=33 name=snd_hda_intel:card0'),
    L(0.99801, '<idle>-0', 'd.h2.', 'xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])'),
    L(0.99801, '<idle>-0', 'd.h2.', '<stack trace>'),
    ' => __snd_pcm_xrun',
    ' => azx_interrupt',
    L(0.99803, '<idle>-0', 'd.h1.', 'irq_handler_exit: irq=33 ret=handled'),
    L(
      1.01502,
      '<idle>-0',
      'd.h1.',
      'hrtimer_expire_entry: hrtimer=00000000aa function=hrtimer_wakeup now=1015020000',
    ),
    L(
      1.01503,
      '<idle>-0',
      'd.h2.',
      'sched_waking: comm=xrunhunt-play pid=300 prio=29 target_cpu=000',
    ),
    L(1.01504, '<idle>-0', 'd.h1.', 'hrtimer_expire_exit: hrtimer=00000000aa'),
    // Past hit + W: not kept.
    L(1.2, '<idle>-0', 'd.h1.', 'irq_handler_entry: irq=33 name=snd_hda_intel:card0'),
  ];
  for (const l of lines) kept.push(l);
  kept.finish();
  const [w] = kept.windows();
  assert.equal(
    w!.lines.at(-1),
    ' => azx_interrupt',
    'the window before the hit ends with its stack',
  );
  assert.deepEqual(w!.after, lines.slice(7, 11), 'after it: the lines up to hit + 50 ms');
  const r = explainRecorderWindows(kept.windows(), {
    periodSeconds: 0.001,
    bufferSeconds: 0.002,
    writerPids: [300],
  });
  const b = r.breakdowns[0]!;
  assert.equal(b.cls, 'application-late');
  assert.ok(b.ownSleep && Math.abs(b.ownSleep.ms - 20.03) < 1e-6, JSON.stringify(b.ownSleep));
  assert.equal(b.ownSleep.wokeAfterHit, true);
  // Without the lines after the hit the same window cannot tell.
  const cut = explainRecorderWindows([{ ...w!, after: [] }], {
    periodSeconds: 0.001,
    bufferSeconds: 0.002,
    writerPids: [300],
  });
  assert.equal(cut.breakdowns[0]!.ownSleep, undefined);
});
