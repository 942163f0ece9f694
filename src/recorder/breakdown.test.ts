// The breakdown model on constructed traces, one per part kind and class, with the numbers
// worked out by hand in each comment. Times: period 1 ms, buffer 2 ms. The traces are ftrace
// text in the lab kernels' grammar, so the parser is part of every case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdownXrun } from './breakdown.js';
import type { StreamTiming, TraceEvent, XrunBreakdown, XrunHit } from './breakdown-types.js';
import { parseTraceText } from './trace-line.js';

const timing: StreamTiming = { periodSeconds: 0.001, bufferSeconds: 0.002 };
const HDA = 'irq=33 name=snd_hda_intel:card0';

/** One ftrace line: `task` is `comm-pid`. */
function L(ts: number, cpu: number, task: string, flags: string, body: string): string {
  return `${task.padStart(16)} [${String(cpu).padStart(3, '0')}] ${flags} ${ts.toFixed(6)}: ${body}`;
}
function sw(
  ts: number,
  cpu: number,
  prev: string,
  prio: number,
  state: string,
  next: string,
  nprio: number,
): string {
  const [pc, pp] = split(prev);
  const [nc, np] = split(next);
  return L(
    ts,
    cpu,
    prev,
    'd..2.',
    `sched_switch: prev_comm=${pc} prev_pid=${pp} prev_prio=${prio} prev_state=${state} ==> next_comm=${nc} next_pid=${np} next_prio=${nprio}`,
  );
}
function wake(
  ts: number,
  cpu: number,
  cur: string,
  flags: string,
  who: string,
  prio: number,
  target: number,
): string {
  const [c, p] = split(who);
  return L(
    ts,
    cpu,
    cur,
    flags,
    `sched_waking: comm=${c} pid=${p} prio=${prio} target_cpu=${String(target).padStart(3, '0')}`,
  );
}
function split(task: string): [string, string] {
  const i = task.lastIndexOf('-');
  return [task.slice(0, i), task.slice(i + 1)];
}
const irqIn = (ts: number, cpu: number, cur: string, what = HDA): string =>
  L(ts, cpu, cur, 'd.h1.', `irq_handler_entry: ${what}`);
const irqOut = (ts: number, cpu: number, cur: string, irq = 33): string =>
  L(ts, cpu, cur, 'd.h1.', `irq_handler_exit: irq=${irq} ret=handled`);
const xrun = (ts: number, cpu: number, cur: string, flags: string): string =>
  L(ts, cpu, cur, flags, 'xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])');

/** Parses the lines; the last xrun event is the hit, the events before it the window. */
function run(lines: string[], t: StreamTiming = timing, windowStart?: number): XrunBreakdown {
  const { events } = parseTraceText(lines.join('\n'));
  const hitEv = events.filter((e) => e.name === 'xrun').at(-1)!;
  const hit: XrunHit = {
    cpu: hitEv.cpu,
    ts: hitEv.ts,
    comm: hitEv.comm,
    pid: hitEv.pid,
    flags: hitEv.flags,
    ...(hitEv.stack ? { stack: hitEv.stack } : {}),
  };
  const b = breakdownXrun(
    events.filter((e: TraceEvent) => e !== hitEv),
    hit,
    t,
    windowStart === undefined ? {} : { windowStart },
  );
  const shares = b.parts.reduce((s, p) => s + p.share, 0);
  assert.ok(Math.abs(shares - 1) < 1e-6, `shares add up to 1 (${shares})`);
  if (b.latenessMs > 0) {
    const ms = b.parts.reduce((s, p) => s + p.ms, 0);
    assert.ok(Math.abs(ms - b.latenessMs) < 1e-3, `parts ${ms} ms = lateness ${b.latenessMs} ms`);
  }
  return b;
}

const near = (actual: number | undefined, expected: number, what: string): void =>
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) < 1e-3,
    `${what}: ${actual} ms, expected ${expected}`,
  );
const part = (b: XrunBreakdown, kind: string, name: string) =>
  b.parts.find((p) => p.kind === kind && p.name === name);

test('blocked-by-task: the writer woken in the period interrupt, kept off by a FIFO hog', () => {
  // aplay woken at 1.0001; hog (prio 9 = SCHED_FIFO 90) keeps cpu 0 until the XRUN at 1.0021:
  // lateness 2.0 ms = hog 0.8 + 0.9 ms, sound IRQ 3 × 0.1 ms.
  const b = run([
    sw(0.9995, 0, 'dd-150', 120, 'S', 'hog-300', 9),
    irqIn(1.0, 0, 'hog-300'),
    wake(1.0001, 0, 'hog-300', 'd.h4.', 'aplay-100', 120, 0),
    irqOut(1.0002, 0, 'hog-300'),
    irqIn(1.001, 0, 'hog-300'),
    irqOut(1.0011, 0, 'hog-300'),
    irqIn(1.002, 0, 'hog-300'),
    xrun(1.0021, 0, 'hog-300', 'dNh2.'),
  ]);
  assert.equal(b.shape, 'hardirq');
  assert.deepEqual(b.late, { comm: 'aplay', pid: 100, role: 'writer' });
  assert.equal(b.cls, 'blocked-by-task');
  near(b.latenessMs, 2.0, 'lateness');
  assert.equal(b.dueTs, 1.0001);
  const hog = part(b, 'task', 'hog');
  near(hog?.ms, 1.7, 'hog');
  assert.equal(hog?.prio, 9);
  near(part(b, 'irq', 'snd_hda_intel:card0')?.ms, 0.3, 'sound irq');
  assert.match(b.summary, /kept off CPU 0 by hog \(pid 300, prio 9\) for 1\.70 ms of 2\.00 ms/);
  assert.equal(b.complete, true);
});

test('irq-latency: a late period interrupt, the interrupted function named from its stack', () => {
  // Period interrupt at 1.0000, the next one due at 1.0010 came at 1.0100 (cpu 0 silent:
  // interrupts off in insmod): 9.0 ms irq latency; then the handler 0.02, insmod 0.01 + 0.02,
  // the IRQ thread's own run 0.05 ms → lateness 9.10 ms from the due time 1.0010.
  const b = run([
    irqIn(1.0, 0, 'insmod-200'),
    irqOut(1.00002, 0, 'insmod-200'),
    wake(1.00003, 0, 'insmod-200', 'dNh3.', 'irq/33-snd_hda_-50', 49, 0),
    sw(1.00004, 0, 'insmod-200', 120, 'R+', 'irq/33-snd_hda_-50', 49),
    wake(1.00006, 0, 'irq/33-snd_hda_-50', 'D..4.', 'aplay-100', 120, 0),
    sw(1.00008, 0, 'irq/33-snd_hda_-50', 49, 'S', 'aplay-100', 120),
    sw(1.0002, 0, 'aplay-100', 120, 'S', 'insmod-200', 120),
    irqIn(1.01, 0, 'insmod-200'),
    L(1.01001, 0, 'insmod-200', 'd.h1.', '<stack trace>'),
    ...[
      'trace_event_raw_event_irq_handler_entry',
      '__handle_irq_event_percpu',
      'handle_irq_event',
      'handle_edge_irq',
      '__common_interrupt',
      'common_interrupt',
      'asm_common_interrupt',
      'xrunhunt_inject_unlock',
      'xrunhunt_inject_init',
      'do_one_initcall',
    ].map((f) => ` => ${f}`),
    irqOut(1.01002, 0, 'insmod-200'),
    wake(1.01003, 0, 'insmod-200', 'dNh3.', 'irq/33-snd_hda_-50', 49, 0),
    sw(1.01005, 0, 'insmod-200', 120, 'R+', 'irq/33-snd_hda_-50', 49),
    xrun(1.0101, 0, 'irq/33-snd_hda_-50', 'D..1.'),
  ]);
  assert.equal(b.shape, 'irq-thread');
  assert.equal(b.cls, 'irq-latency');
  assert.deepEqual(b.late, { comm: 'irq/33-snd_hda_', pid: 50, role: 'irq-thread' });
  near(b.latenessMs, 9.1, 'lateness');
  const top = b.parts[0]!;
  assert.deepEqual([top.kind, top.name, top.pid], ['irq-latency', 'xrunhunt_inject_unlock', 200]);
  near(top.ms, 9.0, 'irq latency');
  assert.deepEqual(top.stack?.slice(0, 2), ['xrunhunt_inject_unlock', 'xrunhunt_inject_init']);
  near(part(b, 'own-run', 'irq/33-snd_hda_')?.ms, 0.05, 'IRQ thread run');
  near(part(b, 'task', 'insmod')?.ms, 0.03, 'insmod after the interrupt');
  assert.match(
    b.summary,
    /period interrupt came late: xrunhunt_inject_unlock for 9\.00 ms of 9\.10 ms/,
  );
});

test('irq-latency without a stack: a sleeping writer whose period interrupt was overdue', () => {
  // Hard-IRQ detection, no IRQ thread. aplay wrote and slept at 1.0002; the interrupt due at
  // 1.0010 came at 1.0100. Its last buffer (2 ms before the hit) is all overdue interrupt.
  const b = run([
    irqIn(1.0, 0, 'insmod-200'),
    wake(1.00001, 0, 'insmod-200', 'd.h4.', 'aplay-100', 120, 0),
    irqOut(1.00002, 0, 'insmod-200'),
    sw(1.00005, 0, 'insmod-200', 120, 'R+', 'aplay-100', 120),
    sw(1.0002, 0, 'aplay-100', 120, 'S', 'insmod-200', 120),
    irqIn(1.01, 0, 'insmod-200'),
    xrun(1.01001, 0, 'insmod-200', 'd.h2.'),
  ]);
  assert.equal(b.cls, 'irq-latency');
  assert.deepEqual(b.late, { comm: 'aplay', pid: 100, role: 'writer' });
  near(b.latenessMs, 2.0, 'lateness (one buffer)');
  assert.match(b.parts[0]!.name, /^insmod \(interrupts off or the CPU stalled/);
  near(b.parts[0]!.ms, 1.99, 'overdue');
});

test('interference: a long hard IRQ handler on the woken writer’s CPU (process detection)', () => {
  // aplay woken by its timer at 1.00001; virtio's handler runs 1.5 ms; dd 0.18 ms; aplay runs
  // 0.3 ms and detects the XRUN in its own write: lateness 1.99 ms.
  const b = run([
    L(
      1.0,
      0,
      'dd-150',
      'd.h1.',
      'hrtimer_expire_entry: hrtimer=(____ptrval____) function=hrtimer_wakeup now=1000000000',
    ),
    wake(1.00001, 0, 'dd-150', 'd.h2.', 'aplay-100', 120, 0),
    L(1.00002, 0, 'dd-150', 'd.h1.', 'hrtimer_expire_exit: hrtimer=(____ptrval____)'),
    irqIn(1.0001, 0, 'dd-150', 'irq=25 name=virtio0-requests'),
    irqOut(1.0016, 0, 'dd-150', 25),
    sw(1.0017, 0, 'dd-150', 120, 'R+', 'aplay-100', 120),
    xrun(1.002, 0, 'aplay-100', '.....'),
  ]);
  assert.equal(b.shape, 'process');
  assert.deepEqual(b.late, { comm: 'aplay', pid: 100, role: 'detector' });
  assert.equal(b.cls, 'interference');
  near(b.latenessMs, 1.99, 'lateness');
  near(part(b, 'irq', 'virtio0-requests')?.ms, 1.5, 'virtio');
  near(part(b, 'task', 'dd')?.ms, 0.18, 'dd');
  near(part(b, 'own-run', 'aplay')?.ms, 0.3, 'own run');
  near(part(b, 'irq', 'hrtimer hrtimer_wakeup')?.ms, 0.01, 'the timer that woke it');
  assert.match(b.summary, /interrupt handler virtio0-requests ran 1\.50 ms of 1\.99 ms/);
});

test('interference: a softirq run on interrupt exit holds the CPU', () => {
  // Woken at 1.0; NET_RX 1.0 ms in dd's context; dd 0.2 ms; aplay's own run 0.3 ms.
  const b = run([
    wake(1.0, 0, 'dd-150', 'd..2.', 'aplay-100', 120, 0),
    L(1.0001, 0, 'dd-150', '..s..', 'softirq_entry: vec=3 [action=NET_RX]'),
    L(1.0011, 0, 'dd-150', '..s..', 'softirq_exit: vec=3 [action=NET_RX]'),
    sw(1.0012, 0, 'dd-150', 120, 'R+', 'aplay-100', 120),
    xrun(1.0015, 0, 'aplay-100', '.....'),
  ]);
  assert.equal(b.cls, 'interference');
  near(part(b, 'softirq', 'NET_RX')?.ms, 1.0, 'NET_RX');
  near(part(b, 'task', 'dd')?.ms, 0.2, 'dd');
  assert.match(b.summary, /softirq NET_RX ran 1\.00 ms of 1\.50 ms/);
});

test('woken-late: runnable on a CPU that stayed idle (exit from idle)', () => {
  // Woken at 1.0 for cpu 1, which is idle until it switches to aplay at 1.0015.
  const b = run([
    L(
      0.999,
      1,
      '<idle>-0',
      'd.h1.',
      'hrtimer_expire_entry: hrtimer=(____ptrval____) function=tick_sched_timer now=999000000',
    ),
    L(0.99901, 1, '<idle>-0', 'd.h1.', 'hrtimer_expire_exit: hrtimer=(____ptrval____)'),
    wake(1.0, 0, 'dd-150', 'd..3.', 'aplay-100', 120, 1),
    sw(1.0015, 1, 'swapper/1-0', 120, 'R', 'aplay-100', 120),
    xrun(1.0018, 1, 'aplay-100', '.....'),
  ]);
  assert.equal(b.cls, 'woken-late');
  const idle = b.parts[0]!;
  assert.deepEqual([idle.kind, idle.name, idle.cpu], ['idle-exit', 'CPU 1 idle', 1]);
  near(idle.ms, 1.5, 'idle');
  near(part(b, 'own-run', 'aplay')?.ms, 0.3, 'own run');
});

test('application-late: the thread itself ran most of the time', () => {
  // Woken at 1.0 on an idle cpu 0, running from 1.00005; its own run 2.95 ms.
  const b = run([
    L(
      0.9995,
      0,
      '<idle>-0',
      'd..2.',
      'sched_waking: comm=rcu_preempt pid=15 prio=120 target_cpu=000',
    ),
    wake(1.0, 0, '<idle>-0', 'd.h2.', 'aplay-100', 120, 0),
    sw(1.00005, 0, 'swapper/0-0', 120, 'R', 'aplay-100', 120),
    xrun(1.003, 0, 'aplay-100', '.....'),
  ]);
  assert.equal(b.cls, 'application-late');
  near(part(b, 'own-run', 'aplay')?.ms, 2.95, 'own run');
  near(part(b, 'idle-exit', 'CPU 0 idle')?.ms, 0.05, 'idle exit');
  assert.match(b.summary, /running itself for 2\.95 ms of 3\.00 ms/);
});

test('application-late: the writer slept through regular period interrupts (sleep)', () => {
  // aplay went to sleep at 0.995 and nobody woke it; interrupts every 1 ms on time. Due one
  // buffer before the hit (1.00101); the interrupts at 1.002 and 1.003 ran in that time.
  const lines = [sw(0.995, 0, 'aplay-100', 120, 'S', 'dd-150', 120)];
  for (let t = 0.996; t < 1.0025; t += 0.001)
    lines.push(irqIn(t, 0, 'dd-150'), irqOut(t + 0.00001, 0, 'dd-150'));
  lines.push(irqIn(1.003, 0, 'dd-150'), xrun(1.00301, 0, 'dd-150', 'dNh2.'));
  const b = run(lines, { ...timing, writerPids: [100] });
  assert.equal(b.cls, 'application-late');
  assert.deepEqual(b.late, { comm: 'aplay', pid: 100, role: 'writer' });
  assert.equal(b.parts.length, 1);
  assert.deepEqual([b.parts[0]!.kind, b.parts[0]!.name], ['sleep', 'aplay']);
  near(b.latenessMs, 2.0, 'one buffer');
  assert.match(
    b.summary,
    /slept without a wake-up for 2\.00 ms of 2\.00 ms: the application chose to wait/,
  );
  assert.match(b.summary, /the sound interrupt ran 2 times meanwhile without waking it/);
});

test('no late thread: incomplete, never a made-up answer', () => {
  const b = run([
    irqIn(1.0, 0, 'dd-150'),
    irqOut(1.00001, 0, 'dd-150'),
    irqIn(1.001, 0, 'dd-150'),
    xrun(1.00101, 0, 'dd-150', 'd.h2.'),
  ]);
  assert.equal(b.complete, false);
  assert.match(b.missing ?? '', /late thread is unknown/);
  assert.deepEqual([b.parts[0]!.kind, b.parts[0]!.ms, b.parts[0]!.share], ['unexplained', 0, 1]);
  assert.match(b.summary, /no late thread found/);
  // A writer pid that no event names: not waiting, not asleep as far as the trace shows.
  const given = run([irqIn(1.0, 0, 'dd-150'), xrun(1.00001, 0, 'dd-150', 'd.h2.')], {
    ...timing,
    writerPids: [777],
  });
  assert.equal(given.complete, false);
  assert.match(given.missing ?? '', /no candidate thread/);
});

test('lost events make a breakdown incomplete but keep its parts', () => {
  const b = run([
    irqIn(1.0, 0, 'hog-300'),
    wake(1.0001, 0, 'hog-300', 'd.h4.', 'aplay-100', 120, 0),
    irqOut(1.0002, 0, 'hog-300'),
    'CPU:1 [LOST 5 EVENTS]',
    irqIn(1.001, 0, 'hog-300'),
    xrun(1.0011, 0, 'hog-300', 'dNh2.'),
  ]);
  assert.equal(b.complete, false);
  assert.match(b.missing ?? '', /5 events were lost/);
  assert.equal(b.cls, 'blocked-by-task');
});

test('the chain: a writer woken late by an IRQ thread that was kept waiting (PREEMPT_RT shape)', () => {
  // The IRQ thread is woken at 1.0 but insmod (preemption off) keeps cpu 0 until 1.008; it
  // wakes aplay at 1.0081, which runs at 1.0082 and detects the XRUN in its own write at 1.0085.
  const b = run([
    irqIn(1.0, 0, 'insmod-200'),
    irqOut(1.00001, 0, 'insmod-200'),
    wake(1.00002, 0, 'insmod-200', 'dNh3.', 'irq/33-snd_hda_-50', 49, 0),
    irqIn(1.001, 0, 'insmod-200'),
    irqOut(1.00101, 0, 'insmod-200'),
    L(
      1.004,
      0,
      'insmod-200',
      'dNh1.',
      'hrtimer_expire_entry: hrtimer=(____ptrval____) function=tick_sched_timer now=1004000000',
    ),
    L(1.00401, 0, 'insmod-200', 'dNh1.', 'hrtimer_expire_exit: hrtimer=(____ptrval____)'),
    sw(1.008, 0, 'insmod-200', 120, 'R+', 'irq/33-snd_hda_-50', 49),
    wake(1.0081, 0, 'irq/33-snd_hda_-50', 'D..4.', 'aplay-100', 120, 0),
    sw(1.0082, 0, 'irq/33-snd_hda_-50', 49, 'S', 'aplay-100', 120),
    xrun(1.0085, 0, 'aplay-100', '.....11'),
  ]);
  assert.equal(b.shape, 'process');
  assert.deepEqual(b.late, { comm: 'irq/33-snd_hda_', pid: 50, role: 'irq-thread' });
  assert.equal(b.cls, 'blocked-by-task');
  assert.equal(b.dueTs, 1.00002);
  near(
    part(b, 'task', 'insmod')?.ms,
    7.96,
    'insmod: 1.00002→1.008 is 7.98, minus 0.01 sound irq and 0.01 tick',
  );
  near(part(b, 'own-run', 'aplay')?.ms, 0.3, 'aplay');
});

test('preemption off, not interrupts: a silent CPU after an ignored need-resched stays the task’s', () => {
  // The IRQ thread is woken at 1.0 (need-resched set in insmod: dNh4.) but insmod keeps cpu 0
  // (preemption off); cpu 0 then records nothing until 1.010 (a vCPU spinning under TCG takes no
  // interrupts either). The silence is insmod's, not an irq-latency part: 10.0 of 10.1 ms.
  const b = run([
    irqIn(0.9995, 0, 'insmod-200'),
    irqOut(0.99951, 0, 'insmod-200'),
    irqIn(1.0, 0, 'insmod-200'),
    irqOut(1.00001, 0, 'insmod-200'),
    wake(1.00002, 0, 'insmod-200', 'dNh4.', 'irq/33-snd_hda_-50', 49, 0),
    irqIn(1.01, 0, 'insmod-200'),
    irqOut(1.01001, 0, 'insmod-200'),
    sw(1.01002, 0, 'insmod-200', 120, 'R+', 'irq/33-snd_hda_-50', 49),
    xrun(1.0101, 0, 'irq/33-snd_hda_-50', 'D..1.'),
  ]);
  assert.equal(b.cls, 'blocked-by-task');
  assert.deepEqual([b.parts[0]!.kind, b.parts[0]!.name], ['task', 'insmod']);
  near(b.parts[0]!.ms, 9.99, 'insmod');
});

// The writer's own sleep (ground truth 4, `play --inject-stall`) against a wait for the device:
// the same trace up to the hit — the writer switched out with prev_state=S, the period
// interrupts on time and not waking it, the XRUN detected in the interrupt — and then only the
// wake-up differs: its own timer (hrtimer_wakeup, armed by it before the sleep) 17 ms after the
// hit, or the XRUN's stop inside the same interrupt. Period 1 ms, buffer 2 ms.
const PLAY = 'xrunhunt-play-300';
const hrStart = (ts: number, cpu: number, task: string, ptr: string, soft: number): string =>
  L(
    ts,
    cpu,
    task,
    'd..1.',
    `hrtimer_start: hrtimer=${ptr} function=hrtimer_wakeup expires=${Math.round(soft * 1e9)} softexpires=${Math.round(soft * 1e9)} mode=ABS`,
  );
const hrIn = (ts: number, cpu: number, cur: string, ptr: string, fn = 'hrtimer_wakeup'): string =>
  L(
    ts,
    cpu,
    cur,
    'd.h1.',
    `hrtimer_expire_entry: hrtimer=${ptr} function=${fn} now=${Math.round(ts * 1e9)}`,
  );
const hrOut = (ts: number, cpu: number, cur: string, ptr: string): string =>
  L(ts, cpu, cur, 'd.h1.', `hrtimer_expire_exit: hrtimer=${ptr}`);

/** Up to the hit: woken by the period interrupt at 0.990, armed (or not) and asleep at 0.99501. */
function sleepingWriter(armed: boolean): string[] {
  const lines = [
    irqIn(0.99, 0, '<idle>-0'),
    wake(0.99001, 0, '<idle>-0', 'd.h3.', PLAY, 29, 0),
    irqOut(0.99002, 0, '<idle>-0'),
    sw(0.99003, 0, 'swapper/0-0', 120, 'R', PLAY, 29),
  ];
  if (armed) lines.push(hrStart(0.995, 0, PLAY, '00000000aa', 1.015));
  lines.push(sw(0.99501, 0, PLAY, 29, 'S', 'swapper/0-0', 120));
  for (const t of [0.996, 0.997])
    lines.push(irqIn(t, 0, '<idle>-0'), irqOut(t + 0.00001, 0, '<idle>-0'));
  lines.push(irqIn(0.998, 0, '<idle>-0'), xrun(0.99801, 0, '<idle>-0', 'd.h2.'));
  return lines;
}

test('own sleep: a writer asleep at the hit, woken by its own timer after it → application-late with the stall’s length', () => {
  const b = run(
    [
      ...sleepingWriter(true),
      irqOut(0.99803, 0, '<idle>-0'),
      hrIn(1.01502, 0, '<idle>-0', '00000000aa'),
      wake(1.01503, 0, '<idle>-0', 'd.h2.', PLAY, 29, 0),
      hrOut(1.01504, 0, '<idle>-0', '00000000aa'),
    ],
    { ...timing, writerPids: [300] },
  );
  assert.equal(b.cls, 'application-late');
  assert.deepEqual(b.late, { comm: 'xrunhunt-play', pid: 300, role: 'writer' });
  // Due one buffer before the hit (0.99601, after the arming at 0.995): all of it its own sleep,
  // the on-time interrupts not carved out (its wake-up was never theirs to give).
  assert.deepEqual(
    b.parts.map((p) => [p.kind, p.name]),
    [['sleep', 'xrunhunt-play']],
  );
  near(b.latenessMs, 2.0, 'lateness (one buffer)');
  // Armed at 0.995 for 1.015 (20 ms), expired 0.02 ms late, woken at 1.01503: 20.03 ms.
  assert.ok(b.ownSleep);
  near(b.ownSleep.ms, 20.03, 'the sleep from the arming to the wake-up');
  near(b.ownSleep.askedMs, 20.0, 'asked for');
  near(b.ownSleep.timerLateMs, 0.02, 'timer late');
  assert.equal(b.ownSleep.wokenBy, 'hrtimer_wakeup');
  assert.equal(b.ownSleep.wokeAfterHit, true);
  assert.equal(
    b.summary,
    'the writer itself slept 20.0 ms (xrunhunt-play, pid 300; woken by its own timer hrtimer_wakeup, 20.0 ms asked for, after the XRUN); no kernel code delayed it',
  );
  assert.equal(b.complete, true);
});

test('wait for the device: the same sleep ended by the XRUN’s stop in the sound interrupt → no period elapsed, not the application', () => {
  const b = run(
    [
      ...sleepingWriter(false),
      // snd_pcm_stop wakes the runtime's sleepers: only a writer in poll/write is one of them.
      wake(0.99802, 0, '<idle>-0', 'd.h3.', PLAY, 29, 0),
      irqOut(0.99803, 0, '<idle>-0'),
    ],
    { ...timing, writerPids: [300] },
  );
  assert.equal(b.cls, 'irq-latency');
  assert.equal(b.ownSleep, undefined);
  assert.equal(b.parts.length, 1);
  assert.match(
    b.parts[0]!.name,
    /^no period elapsed: snd_hda_intel:card0 ran but the device's position did not advance/,
  );
  near(b.latenessMs, 2.0, 'one buffer');
  assert.match(
    b.summary,
    /^xrunhunt-play \(pid 300, writer\) waited 2\.00 ms of 2\.00 ms for room in the buffer: the sound interrupt ran 2 times meanwhile but no period elapsed .*snd_hda_intel:card0 woke it after the XRUN$/,
  );
});

test('own sleep unseen: a window that ends at the hit cannot tell, and says the writer slept without a wake-up', () => {
  const b = run(sleepingWriter(true), { ...timing, writerPids: [300] });
  assert.equal(b.cls, 'application-late');
  assert.equal(b.ownSleep, undefined);
  assert.deepEqual([b.parts[0]!.kind, b.parts[0]!.name], ['sleep', 'xrunhunt-play']);
  assert.match(b.summary, /slept without a wake-up/);
});

test('own sleep before the hit: woken by its own timer, detected in its own call → the sleep is the late link', () => {
  // Armed at 0.990 for 0.995 (5 ms, more than the 2 ms buffer), woken at 0.99503, on CPU at
  // 0.99505, detected in its own call at 0.9953. Due at 0.9933 (one buffer before the hit):
  // 1.7 ms asked-for sleep, 0.03 ms timer lateness, 0.02 ms waiting on the idle CPU, 0.25 ms own run.
  const b = run(
    [
      hrStart(0.99, 0, PLAY, '00000000bb', 0.995),
      sw(0.99001, 0, PLAY, 29, 'S', 'swapper/0-0', 120),
      irqIn(0.993, 0, '<idle>-0'),
      irqOut(0.99301, 0, '<idle>-0'),
      hrIn(0.99502, 0, '<idle>-0', '00000000bb'),
      wake(0.99503, 0, '<idle>-0', 'd.h2.', PLAY, 29, 0),
      hrOut(0.99504, 0, '<idle>-0', '00000000bb'),
      sw(0.99505, 0, 'swapper/0-0', 120, 'R', PLAY, 29),
      xrun(0.9953, 0, PLAY, 'd..1.'),
    ],
    { ...timing, writerPids: [300] },
  );
  assert.equal(b.shape, 'process');
  assert.equal(b.cls, 'application-late');
  near(b.latenessMs, 2.0, 'one buffer');
  near(part(b, 'sleep', 'xrunhunt-play')?.ms, 1.7, 'asked-for sleep');
  near(part(b, 'own-run', 'xrunhunt-play')?.ms, 0.25, 'own run');
  assert.ok(b.ownSleep);
  near(b.ownSleep.ms, 5.03, 'sleep');
  assert.equal(b.ownSleep.wokeAfterHit, false);
  assert.match(
    b.summary,
    /^the writer itself slept 5\.0 ms \(xrunhunt-play, pid 300; woken by its own timer hrtimer_wakeup, 5\.0 ms asked for\); no kernel code delayed it$/,
  );
});

test('a short own sleep (a timer-paced writer’s period) is not taken for a stall', () => {
  const b = run(
    [
      hrStart(0.994, 0, PLAY, '00000000cc', 0.995),
      sw(0.99401, 0, PLAY, 29, 'S', 'swapper/0-0', 120),
      hrIn(0.99502, 0, '<idle>-0', '00000000cc'),
      wake(0.99503, 0, '<idle>-0', 'd.h2.', PLAY, 29, 0),
      hrOut(0.99504, 0, '<idle>-0', '00000000cc'),
      sw(0.99505, 0, 'swapper/0-0', 120, 'R', PLAY, 29),
      xrun(0.9953, 0, PLAY, 'd..1.'),
    ],
    { ...timing, writerPids: [300] },
  );
  assert.equal(b.ownSleep, undefined);
  near(b.latenessMs, 0.27, 'from its wake-up');
});

test('own sleep whose timer expired late: the lateness after the time asked for is the timer’s', () => {
  // Armed at 0.990 for 0.9945 (4.5 ms), the hit at 0.99801, the timer expired at 0.99900.
  const b = run(
    [
      hrStart(0.99, 0, PLAY, '00000000dd', 0.9945),
      sw(0.99001, 0, PLAY, 29, 'S', 'dd-150', 120),
      irqIn(0.998, 0, 'dd-150'),
      xrun(0.99801, 0, 'dd-150', 'd.h2.'),
      irqOut(0.99803, 0, 'dd-150'),
      hrIn(0.999, 0, 'dd-150', '00000000dd'),
      wake(0.99901, 0, 'dd-150', 'd.h2.', PLAY, 29, 0),
      hrOut(0.99902, 0, 'dd-150', '00000000dd'),
    ],
    { ...timing, writerPids: [300] },
  );
  assert.equal(b.cls, 'irq-latency');
  assert.match(b.parts[0]!.name, /^its own timer hrtimer_wakeup expired late/);
  near(b.parts[0]!.ms, 2.0, 'all of the buffer after the time asked for');
  near(b.ownSleep?.timerLateMs, 4.5, 'timer late');
  assert.match(
    b.summary,
    /its timer hrtimer_wakeup expired 4\.50 ms after the time it asked for .*the timer interrupt came late$/,
  );
});

test('own sleep, then a wait for a late period interrupt: the sleep that drained the buffer is the late link', () => {
  // The shape of a ground-truth-4 run under TCG: the writer armed its own 5 ms timer (more than
  // the 2 ms buffer) at 0.990, its timer woke it at 0.99503, it went back to wait for room at
  // 0.9951; the next period interrupt came late (none between 0.993 and 0.9965: the CPU stalled)
  // and found the buffer empty. The buffer ran dry during the writer's own sleep.
  const b = run(
    [
      irqIn(0.992, 0, '<idle>-0'),
      irqOut(0.99201, 0, '<idle>-0'),
      hrStart(0.99, 0, PLAY, '00000000ee', 0.995),
      sw(0.99001, 0, PLAY, 29, 'S', 'swapper/0-0', 120),
      irqIn(0.993, 0, '<idle>-0'),
      irqOut(0.99301, 0, '<idle>-0'),
      hrIn(0.99502, 0, '<idle>-0', '00000000ee'),
      wake(0.99503, 0, '<idle>-0', 'd.h2.', PLAY, 29, 0),
      hrOut(0.99504, 0, '<idle>-0', '00000000ee'),
      sw(0.99505, 0, 'swapper/0-0', 120, 'R', PLAY, 29),
      sw(0.9951, 0, PLAY, 29, 'S', 'swapper/0-0', 120),
      irqIn(0.9965, 0, '<idle>-0'),
      wake(0.99651, 0, '<idle>-0', 'd.h3.', PLAY, 29, 0),
      xrun(0.99652, 0, '<idle>-0', 'd.h2.'),
      irqOut(0.99653, 0, '<idle>-0'),
    ],
    { ...timing, writerPids: [300] },
  );
  assert.equal(b.cls, 'application-late', b.summary);
  assert.ok(b.ownSleep, b.summary);
  near(b.ownSleep.ms, 5.03, 'the sleep from the arming to the wake-up');
  assert.equal(b.ownSleep.wokeAfterHit, false);
  // Late from the arming to the wake-up: the asked sleep and its timer's 0.02 ms; the late
  // interrupt after it only noticed the XRUN and is not a part.
  near(b.latenessMs, 5.03, 'lateness');
  assert.deepEqual(
    b.parts.map((p) => p.kind),
    ['sleep', 'irq-latency'],
  );
  assert.match(b.parts[1]!.name, /^its own timer hrtimer_wakeup expired late/);
  assert.match(b.summary, /^the writer itself slept 5\.0 ms .*no kernel code delayed it$/);
});
