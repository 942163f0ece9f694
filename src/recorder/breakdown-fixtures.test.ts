// Breakdowns of real XRUNs from the lab's captures (test/fixtures/recorder/README.md), each
// checked by reading the trace by hand; the numbers and why are in the comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { breakdownLookbackSeconds, breakdownXrun } from './breakdown.js';
import type { StreamTiming, XrunBreakdown } from './breakdown-types.js';
import { parseTraceText } from './trace-line.js';

const dir = fileURLToPath(new URL('../../test/fixtures/recorder/', import.meta.url));
// aplay --period-size=64 --buffer-size=128 at 48 kHz.
const timing: StreamTiming = { periodSeconds: 64 / 48000, bufferSeconds: 128 / 48000 };

/** The breakdown of the XRUN at `ts` in a fixture, from the recorder's usual window. */
function breakdownAt(file: string, ts: number): XrunBreakdown {
  const { events, stats } = parseTraceText(readFileSync(dir + file, 'utf8'));
  assert.equal(stats.unparsed, 0, `${file} parses`);
  const hit = events.find((e) => e.name === 'xrun' && e.ts === ts);
  assert.ok(hit, `${file} has the XRUN at ${ts}`);
  const t0 = ts - breakdownLookbackSeconds(timing);
  const b = breakdownXrun(
    events.filter((e) => e.ts >= t0 && e.ts <= ts && e !== hit),
    hit,
    timing,
    { windowStart: t0 },
  );
  const sum = b.parts.reduce((s, p) => s + p.share, 0);
  assert.ok(Math.abs(sum - 1) < 1e-6, `shares add up to 1 (${sum})`);
  const ms = b.parts.reduce((s, p) => s + p.ms, 0);
  assert.ok(Math.abs(ms - b.latenessMs) < 1e-3, `parts ${ms} = lateness ${b.latenessMs}`);
  return b;
}

const near = (actual: number | undefined, expected: number, what: string, tol = 0.0015): void =>
  assert.ok(
    actual !== undefined && Math.abs(actual - expected) < tol,
    `${what}: ${actual} ms, expected ${expected}`,
  );

test('threadirqs: the IRQ thread detected it on time; aplay, woken 2.17 ms before, never ran', () => {
  // irq/33 wakes aplay at 8.570439 and detects the XRUN at 8.572607 (2.168 ms). In between
  // cpu 0 ran cat 8.570501–.840, .911–.571032, .077–.218, .356–.614 (0.859 ms), dd 0.840 ms net
  // (0.071 + 0.045 + 0.073 + 0.703, minus the tick 0.046 and two sound IRQs 0.006), irq/33
  // itself 0.062 + 0.043 + 0.290 ms, kworker/0:1 0.022 ms.
  const b = breakdownAt('threadirqs-irq-writer-blocked.txt', 8.572607);
  assert.equal(b.shape, 'irq-thread');
  assert.deepEqual(b.late, { comm: 'aplay', pid: 180, role: 'writer' });
  assert.equal(b.dueTs, 8.570439);
  near(b.latenessMs, 2.168, 'lateness');
  assert.equal(b.cls, 'blocked-by-task');
  const [cat, dd, irqThread] = b.parts;
  assert.deepEqual([cat!.name, cat!.pid, cat!.prio], ['cat', 178, 120]);
  near(cat!.ms, 0.859, 'cat');
  assert.deepEqual([dd!.name, dd!.pid], ['dd', 179]);
  near(dd!.ms, 0.84, 'dd');
  assert.deepEqual(
    [irqThread!.kind, irqThread!.name, irqThread!.prio],
    ['task', 'irq/33-snd_hda_', 49],
  );
  near(irqThread!.ms, 0.395, 'irq thread');
  assert.equal(b.complete, true);
});

test('threadirqs + irq lockup: the late period interrupt names xrunhunt_inject_unlock', () => {
  // Sound IRQ at 10.103148, next due 1.333 ms later (10.104481); cpu 0 is silent from
  // 10.104291 (insmod switched in) to 10.114394, the interrupt comes at 10.114655 with a stack
  // through asm_sysvec_apic_timer_interrupt into xrunhunt_inject_unlock: 10.174 ms of irq
  // latency; then the handler 0.117 ms, insmod 0.083 ms, the IRQ thread's run 0.410 ms up to
  // the XRUN at 10.115265 (lateness 10.784 ms).
  const b = breakdownAt('threadirqs-irq-lockup-irqstack.txt', 10.115265);
  assert.equal(b.cls, 'irq-latency');
  assert.deepEqual(b.late, { comm: 'irq/33-snd_hda_', pid: 160, role: 'irq-thread' });
  near(b.latenessMs, 10.784, 'lateness');
  const top = b.parts[0]!;
  assert.deepEqual([top.kind, top.name, top.pid], ['irq-latency', 'xrunhunt_inject_unlock', 174]);
  near(top.ms, 10.174, 'irq latency');
  assert.equal(top.stack?.[1], 'xrunhunt_inject_init');
  near(b.parts.find((p) => p.kind === 'own-run')?.ms, 0.41, 'IRQ thread run');
});

test('hard-IRQ detection + preempt lockup: aplay woken in the interrupt, insmod kept the CPU', () => {
  // The sound IRQ in insmod wakes aplay at 8.856857; insmod (preemption off) runs until the
  // next sound IRQ detects the XRUN at 8.858943 (2.086 ms): sound IRQ 0.038 + 0.025 ms, the
  // watchdog hrtimer 0.052 ms, insmod the rest, 1.971 ms.
  const b = breakdownAt('hardirq-preempt-lockup.txt', 8.858943);
  assert.equal(b.shape, 'hardirq');
  assert.deepEqual(b.late, { comm: 'aplay', pid: 166, role: 'writer' });
  assert.equal(b.cls, 'blocked-by-task');
  near(b.latenessMs, 2.086, 'lateness');
  assert.deepEqual([b.parts[0]!.name, b.parts[0]!.pid], ['insmod', 159]);
  near(b.parts[0]!.ms, 1.971, 'insmod');
  near(b.parts.find((p) => p.name === 'hrtimer watchdog_timer_fn')?.ms, 0.052, 'watchdog');
});

test('PREEMPT_RT + preempt lockup: the IRQ thread waited 9.6 ms behind insmod', () => {
  // The hard handler wakes irq/33 at 8.673834 in insmod; insmod switches to it only at
  // 8.683567; it detects the XRUN at 8.683661 (9.827 ms). insmod: 9.733 ms minus nine
  // interrupt/timer runs (0.108 ms) = 9.625 ms; the IRQ thread's own run 0.094 ms.
  const b = breakdownAt('rt-preempt-lockup.txt', 8.683661);
  assert.equal(b.shape, 'irq-thread');
  assert.deepEqual(b.late, { comm: 'irq/33-snd_hda_', pid: 167, role: 'irq-thread' });
  assert.equal(b.dueTs, 8.673834);
  near(b.latenessMs, 9.827, 'lateness');
  assert.equal(b.cls, 'blocked-by-task');
  assert.deepEqual([b.parts[0]!.name, b.parts[0]!.pid, b.parts[0]!.prio], ['insmod', 181, 120]);
  near(b.parts[0]!.ms, 9.625, 'insmod');
  assert.match(
    b.summary,
    /kept off CPU 0 by insmod \(pid 181, prio 120\) for 9\.63 ms of 9\.83 ms/,
  );
});

test('PREEMPT_RT: aplay detects it in its own write, the chain leads back to the waiting IRQ thread', () => {
  // aplay (process context, 7-char RT flags) was woken at 8.749449 by irq/33, which had been
  // woken by the sound IRQ ~10 ms earlier and kept off cpu 0 by insmod: the IRQ thread is the
  // late link and insmod the top blocker (8.43 ms); aplay's own run is a small part.
  const b = breakdownAt('rt-process-detection.txt', 8.750127);
  assert.equal(b.shape, 'process');
  assert.deepEqual(b.detector, { comm: 'aplay', pid: 188, cpu: 0 });
  assert.deepEqual(b.late, { comm: 'irq/33-snd_hda_', pid: 167, role: 'irq-thread' });
  assert.equal(b.cls, 'blocked-by-task');
  assert.deepEqual([b.parts[0]!.name, b.parts[0]!.pid], ['insmod', 181]);
  assert.ok(b.parts[0]!.share > 0.75, `insmod share ${b.parts[0]!.share}`);
  near(b.parts.find((p) => p.kind === 'own-run' && p.name === 'aplay')?.ms, 0.393, 'aplay');
});

test('snd-dummy in softirq: its hrtimer expired 6.8 ms late while the virtual CPU stalled', () => {
  // The dummy hrtimer ran at 7.067398; the next was due 1.333 ms later (7.068731). cpu 1 (and
  // cpu 0) record nothing from ~7.0700 to 7.0754 — the VM did not run; the tick then wakes
  // ksoftirqd/1 at 7.075541, which runs the timer at 7.075689 and detects the XRUN at
  // 7.075998: irq latency 7.075541 − 7.068731 = 6.810 ms of 7.267 ms.
  const b = breakdownAt('dummy-softirq-timer-late.txt', 7.075998);
  assert.equal(b.shape, 'softirq');
  assert.deepEqual(b.late, { comm: 'ksoftirqd/1', pid: 21, role: 'softirq-thread' });
  assert.equal(b.cls, 'irq-latency');
  near(b.latenessMs, 7.267, 'lateness');
  near(b.parts[0]!.ms, 6.81, 'late timer');
  assert.match(b.parts[0]!.name, /interrupts off or the CPU stalled/);
});
