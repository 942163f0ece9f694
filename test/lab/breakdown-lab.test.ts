// Ground truth for the per-XRUN latency breakdown (issue 17) on Debian's own kernels in the lab:
// a flight-recorder capture (test/lab/breakdown-capture.sh: own tracefs instance, scheduler and
// interrupt events, the xrun kprobe with its stack, the stack at each sound interrupt) while
// aplay plays 64/128 frames on the HDA card, and a known culprit:
//   1. threadirqs + lockup:10:irq   → irq-latency, the injector's function named;
//   2. threadirqs + lockup:10:preempt, and PREEMPT_RT + lockup:10:preempt → blocked by insmod
//      (the injector runs in insmod's module init);
//   3. a SCHED_FIFO 90 busy loop (xrunhog) pinned to aplay's CPU (aplay SCHED_FIFO 50) →
//      blocked by xrunhog, prio 9;
//   4. `xrunhunt play --inject-stall 20x5` at 256×2 frames (no load) → application-late, the
//      writer's own sleep with the length it asked for, no kernel culprit.
// Which XRUNs the culprit caused is read off the trace's own sched_switch events, not from the
// breakdown: those in a stretch where the culprit held CPU 0 (≥ 8 ms for the injector) or up to
// a buffer and 2 ms after it; for the hog, those after it had held the CPU a whole buffer. TCG
// and a shared host make spontaneous XRUNs too (the trace reader and dd also delay aplay), so
// each case asserts a share of the in-window XRUNs and that the culprit ranks first over them by
// net time (the summary's blocker ranking), with the margins stated and the measured values in
// the comments. XRUNHUNT_LAB_KEEP=1 keeps the captures.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execInLab, GUEST_XRUNHUNT } from '../helpers/lab.js';
import { breakdownLookbackSeconds, breakdownXrun } from '../../src/recorder/breakdown.js';
import type {
  StreamTiming,
  TraceEvent,
  XrunBreakdown,
} from '../../src/recorder/breakdown-types.js';
import { summarizeBreakdowns } from '../../src/recorder/breakdown-summary.js';
import { EventWindow } from '../../src/recorder/event-window.js';
import { parseTraceText } from '../../src/recorder/trace-line.js';
import { debianLabSkip } from './debian-lab.js';
import { stallTruth, type PlayJson } from './stall-truth.js';

const skipDebian = await debianLabSkip('debian');
const skipRt = await debianLabSkip('debian-rt');
const script = fileURLToPath(new URL('./breakdown-capture.sh', import.meta.url));
// aplay --period-size=64 --buffer-size=128 at 48 kHz.
const timing: StreamTiming = { periodSeconds: 64 / 48000, bufferSeconds: 128 / 48000 };

interface CaptureRun {
  name: string;
  mode: string;
}

/**
 * Runs captures one after the other in one lab boot (the script removes its probe and instance
 * on exit, so the next starts clean); the results folder holds NAME.txt and a `rc NAME=` line
 * per capture is on stdout.
 */
async function runCaptures(
  runs: CaptureRun[],
  labOptions: string[],
  timeoutMinutes: number,
): Promise<{ base: string; out: string; stdout: string; stderr: string }> {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-breakdown-lab-'));
  const out = join(base, 'results');
  const lines = runs.map(({ name, mode }) => {
    const extra = mode === 'stall' ? ` '${GUEST_XRUNHUNT}'` : '';
    return `sh ${script} ${name} ${mode}${extra}; echo "rc ${name}=$?"`;
  });
  const r = await execInLab(lines.join('\n'), {
    labOptions: [...labOptions, '--card', 'hda', '--out', out, '--timeout', `${timeoutMinutes}m`],
    timeoutMs: timeoutMinutes * 60_000 + 50_000,
  });
  return { base, out, stdout: r.stdout, stderr: r.stderr };
}

/** The parsed trace of one capture of a runCaptures folder (`read` sees the results folder). */
function readCapture(
  run: Awaited<ReturnType<typeof runCaptures>>,
  name: string,
  read?: (out: string) => void,
): TraceEvent[] {
  assert.match(run.stdout, new RegExp(`^rc ${name}=0$`, 'm'), `${run.stdout}\n${run.stderr}`);
  const { events, stats } = parseTraceText(readFileSync(join(run.out, `${name}.txt`), 'utf8'));
  assert.ok(stats.events > 1000, `the recorder traced (${stats.events} events)`);
  read?.(run.out);
  return events;
}

// XRUNHUNT_LAB_KEEP=1 keeps the capture for a look at a failed case.
function removeCapture(run: { base: string; out: string }): void {
  if (process.env['XRUNHUNT_LAB_KEEP']) process.stderr.write(`lab capture kept in ${run.out}\n`);
  else rmSync(run.base, { recursive: true, force: true });
}

/** Runs one capture in its own lab boot and returns the parsed trace. */
async function capture(
  name: string,
  labOptions: string[],
  mode = 'plain',
  read?: (out: string) => void,
  timeoutMinutes = 4,
): Promise<TraceEvent[]> {
  const run = await runCaptures([{ name, mode }], labOptions, timeoutMinutes);
  try {
    return readCapture(run, name, read);
  } finally {
    removeCapture(run);
  }
}

// Ground truths 3 and 4 need the same guest (Debian's kernel, HDA, no injector): one boot runs
// the FIFO hog's capture, then the stall's.
let debianCaptures: ReturnType<typeof runCaptures> | undefined;
const debianHdaCaptures = (): ReturnType<typeof runCaptures> =>
  (debianCaptures ??= runCaptures(
    [
      { name: 'fifo', mode: 'fifo-hog' },
      { name: 'stall', mode: 'stall' },
    ],
    ['--kernel', 'debian'],
    12,
  ));
after(async () => {
  if (debianCaptures) removeCapture(await debianCaptures);
});

/** Every XRUN's breakdown, cut from a bounded window the way the recorder probe does. */
function breakdowns(events: readonly TraceEvent[]): XrunBreakdown[] {
  const look = breakdownLookbackSeconds(timing);
  const w = new EventWindow({ keepSeconds: 2 * look, maxEvents: 100_000 });
  const out: XrunBreakdown[] = [];
  for (const e of events) {
    if (e.name === 'xrun') {
      const win = w.between(e.ts - look, e.ts);
      out.push(breakdownXrun(win, e, timing, { windowStart: e.ts - look }));
    }
    w.push(e);
  }
  return out;
}

/** Stretches where `comm` held a CPU (switched in → switched out) for at least minSeconds. */
function onCpu(events: readonly TraceEvent[], comm: string, minSeconds: number) {
  const runs: { from: number; to: number; pid: number }[] = [];
  const since = new Map<number, { ts: number; pid: number }>();
  for (const e of events) {
    if (e.name !== 'sched_switch') continue;
    const s = since.get(e.cpu);
    if (s && e.fields['prev_comm'] === comm) {
      if (e.ts - s.ts >= minSeconds) runs.push({ from: s.ts, to: e.ts, pid: s.pid });
      since.delete(e.cpu);
    }
    if (e.fields['next_comm'] === comm)
      since.set(e.cpu, { ts: e.ts, pid: Number(e.fields['next_pid']) });
  }
  return runs;
}

/**
 * The breakdowns of XRUNs in a culprit's stretch (from `lead` seconds after its start) or up to
 * a buffer + 2 ms after it.
 */
function inWindow(
  all: XrunBreakdown[],
  runs: { from: number; to: number }[],
  lead = 0,
): XrunBreakdown[] {
  const after = timing.bufferSeconds + 0.002;
  return all.filter((b) => runs.some((r) => b.ts >= r.from + lead && b.ts <= r.to + after));
}

function share(list: XrunBreakdown[], pred: (b: XrunBreakdown) => boolean): number {
  return list.length === 0 ? 0 : list.filter(pred).length / list.length;
}

/** The blocker that ranks first by net time over these breakdowns (the issue's ground truth). */
function topBlocker(list: XrunBreakdown[]) {
  return summarizeBreakdowns(list).blockers[0];
}

function report(label: string, all: XrunBreakdown[], hits: XrunBreakdown[]): void {
  const tally = new Map<string, number>();
  for (const b of hits) {
    const k = `${b.cls}: ${b.parts[0]?.name.slice(0, 48) ?? '?'}`;
    tally.set(k, (tally.get(k) ?? 0) + 1);
  }
  const complete = share(all, (b) => b.complete);
  const missing = new Map<string, number>();
  for (const b of all)
    if (b.missing)
      missing.set(b.missing.slice(0, 40), (missing.get(b.missing.slice(0, 40)) ?? 0) + 1);
  process.stderr.write(
    `lab breakdown ${label}: ${all.length} XRUNs, ${(complete * 100).toFixed(0)} % complete; ${hits.length} in the culprit's windows: ` +
      `${[...tally].map(([k, n]) => `${n}× ${k}`).join('; ')}` +
      (missing.size > 0
        ? `; incomplete: ${[...missing].map(([k, n]) => `${n}× ${k}`).join('; ')}`
        : '') +
      '\n',
  );
}

test(
  'breakdown ground truth 1: threadirqs + irqs off → irq-latency naming xrunhunt_inject_unlock',
  { skip: skipDebian, timeout: 300_000 },
  async () => {
    const events = await capture('irq', [
      '--kernel',
      'debian',
      '--threadirqs',
      '--inject',
      'lockup:10:irq',
    ]);
    const runs = onCpu(events, 'insmod', 0.008);
    const injector = new Set(runs.map((r) => r.pid));
    const all = breakdowns(events);
    const hits = inWindow(all, runs);
    report('threadirqs lockup:10:irq', all, hits);
    assert.ok(hits.length >= 4, `at least 4 XRUNs in injection windows, got ${hits.length}`);
    // The late interrupt is the injector's: named by function, or — when its module was gone
    // before trace_pipe symbolized the stack — by the interrupted task's pid. Measured 29/30 and
    // 49/50, 15/19 (and 24/26 in a capture without the interrupt stack); margin: 70 %.
    const byInjector = share(
      hits,
      (b) =>
        b.cls === 'irq-latency' &&
        (b.parts[0]!.name === 'xrunhunt_inject_unlock' || injector.has(b.parts[0]!.pid ?? -1)),
    );
    assert.ok(byInjector >= 0.7, `irq-latency in the injector: ${(byInjector * 100).toFixed(0)} %`);
    // By function name: measured 24/30, 44/50 and 10/19. The rest are raw addresses: trace_pipe
    // symbolizes when it is read, and a loaded reader comes after insmod's failed init has
    // unloaded the module. Margin: 35 %.
    const named = share(hits, (b) => b.parts[0]!.name === 'xrunhunt_inject_unlock');
    assert.ok(named >= 0.35, `xrunhunt_inject_unlock named: ${(named * 100).toFixed(0)} %`);
    // Ranked over these XRUNs, it comes first (measured 70 % and 67 % of all net time).
    const top = topBlocker(hits);
    assert.deepEqual([top?.kind, top?.name], ['irq-latency', 'xrunhunt_inject_unlock']);
  },
);

/** Case 2 on one kernel: blocked by insmod (the injector's thread). */
async function preemptCase(kernel: 'debian' | 'debian-rt', extra: string[]): Promise<void> {
  // 7 minutes, not 4: in one CI run with a second guest beside it, this guest was still
  // copying its 457,648-line trace over 9p when the 4-minute limit killed it.
  const events = await capture(
    'preempt',
    ['--kernel', kernel, ...extra, '--inject', 'lockup:10:preempt'],
    'plain',
    undefined,
    7,
  );
  const runs = onCpu(events, 'insmod', 0.008);
  const injector = new Set(runs.map((r) => r.pid));
  const all = breakdowns(events);
  const hits = inWindow(all, runs);
  report(`${kernel} ${extra.join(' ')} lockup:10:preempt`, all, hits);
  assert.ok(hits.length >= 4, `at least 4 XRUNs in injection windows, got ${hits.length}`);
  // Measured: threadirqs 28/31 and 15/19, PREEMPT_RT 20/22 and 19/32 (at load 9); margin: 50 %.
  const blocked = share(hits, (b) => b.cls === 'blocked-by-task' && b.parts[0]!.name === 'insmod');
  assert.ok(blocked >= 0.5, `blocked-by-task insmod: ${(blocked * 100).toFixed(0)} %`);
  // The top part names the injector (as the blocking task, or as the task the late interrupt
  // found running — under TCG a spinning vCPU also delays interrupts): measured 29/31, 20/22;
  // margin: 70 %.
  const named = share(
    hits,
    (b) => b.parts[0]!.name === 'insmod' || injector.has(b.parts[0]!.pid ?? -1),
  );
  assert.ok(named >= 0.7, `insmod on top: ${(named * 100).toFixed(0)} %`);
  // Ranked over these XRUNs, insmod comes first (measured 74 % and 85 % of all net time).
  const top = topBlocker(hits);
  assert.deepEqual([top?.kind, top?.name, top?.prio], ['task', 'insmod', 120]);
}

test(
  'breakdown ground truth 2: threadirqs + preemption off → blocked by the injector’s thread',
  { skip: skipDebian, timeout: 300_000 },
  () => preemptCase('debian', ['--threadirqs']),
);

test(
  'breakdown ground truth 2 (PREEMPT_RT): preemption off → blocked by the injector’s thread',
  { skip: skipRt, timeout: 300_000 },
  () => preemptCase('debian-rt', []),
);

test(
  'breakdown ground truth 3: a SCHED_FIFO 90 busy loop on aplay’s CPU → blocked by xrunhog, prio 9',
  // Runs both captures of the shared boot (the stall after the hog): up to 12 minutes.
  { skip: skipDebian, timeout: 780_000 },
  async () => {
    const events = readCapture(await debianHdaCaptures(), 'fifo');
    const runs = onCpu(events, 'xrunhog', 0);
    assert.ok(runs.length >= 4, `the hog ran (${runs.length} stretches)`);
    // The hog's XRUNs: those after it had held CPU 0 for a whole buffer (earlier ones had other
    // causes in their window too: QEMU's irregular HDA interrupt, the trace reader, the stack
    // trigger's own cost — a burst makes about one XRUN of its own before the stream stops).
    const all = breakdowns(events);
    const held = onCpu(events, 'xrunhog', timing.bufferSeconds);
    const hits = inWindow(all, held, timing.bufferSeconds);
    report('fifo hog', all, hits);
    assert.ok(hits.length >= 3, `at least 3 XRUNs in the hog's windows, got ${hits.length}`);
    // FIFO 90 → kernel prio 9. Ranked over these XRUNs the hog comes first; per XRUN it was the
    // largest part in 3/3, 5/7 and 16/23 (captures at load 7–10); margin: 50 %.
    // Not ranked: XRUNs the breakdown itself puts down to a period interrupt that came late with
    // no sign of interrupts off ("the device, the hypervisor …"). Under TCG that is QEMU's HDA
    // timer firing late on a loaded host, a TCG artefact. In one CI run, 3 such XRUNs (of 14)
    // summed more milliseconds than the hog's 10 and came first by total time. They stay a
    // minority (at most a third), so the exclusion cannot empty the check.
    const deviceLate = (b: XrunBreakdown): boolean =>
      b.cls === 'irq-latency' &&
      /came late \(no sign of interrupts off/.test(b.parts[0]?.name ?? '');
    const lateDevice = hits.filter(deviceLate);
    assert.ok(
      lateDevice.length * 3 <= hits.length,
      `${lateDevice.length} of ${hits.length} put down to a late device interrupt`,
    );
    const top = topBlocker(hits.filter((b) => !deviceLate(b)));
    assert.deepEqual([top?.kind, top?.name, top?.prio], ['task', 'xrunhog', 9]);
    const blocked = share(
      hits,
      (b) =>
        b.cls === 'blocked-by-task' && b.parts[0]!.name === 'xrunhog' && b.parts[0]!.prio === 9,
    );
    assert.ok(blocked >= 0.5, `blocked by xrunhog prio 9: ${(blocked * 100).toFixed(0)} %`);
  },
);

test(
  'breakdown ground truth 4: play --inject-stall 20x5 → application-late, the writer’s own sleep of the asked length, no kernel culprit',
  { skip: skipDebian, timeout: 660_000 },
  async () => {
    let play: PlayJson | undefined;
    // Node and tsx start slowly in the guest under TCG: one to three minutes at load 10–15; at
    // load 23 the boot alone took 164 s and 7 minutes were not enough.
    const read = (out: string): void => {
      play = JSON.parse(readFileSync(join(out, 'stall-play.json'), 'utf8')) as PlayJson;
    };
    const events = readCapture(await debianHdaCaptures(), 'stall', read);
    assert.ok(play, 'xrunhunt play wrote its report');
    assert.equal(play.stallsInjected, 5, 'five stalls injected');
    // The recorder's windows reach max(2 buffers, 50 ms) past the hit (run/recorder-windows.ts).
    const stall: StreamTiming = { periodSeconds: 256 / 48000, bufferSeconds: 512 / 48000 };
    const t = stallTruth(events, play, stall, 0.05);
    // A stall the trace shows whole: the writer armed its own 20 ms timer (hrtimer_start of
    // hrtimer_wakeup, 19–21 ms to its soft expiry) and the XRUN it saw after the stall came
    // between that arming and its wake-up (or just after, in its own call). Under TCG on a loaded
    // host the rest are XRUNs that came first (the stream ran dry before the stall began) or
    // whose stall began with a stalled vCPU (5–15 ms between reading the clock and arming the
    // timer): measured 3 of 5 whole at load 13, 3 of 4 at load 10 with dd, 3 of 4 at load 20
    // (asked 19.94, 19.74 and 19.93 ms; slept 20.05, 19.83 and 21.59 ms), 3 of 5 at load 25
    // (asked 19.91, 19.88, 19.92 ms; slept 20.96, 19.99, 20.01 ms). Margin: 2.
    const whole = t.stalls.filter((s) => s.armed && Math.abs(s.armed.askedMs - 20) <= 1);
    const lines = t.stalls.map(
      (s) =>
        `${s.breakdown.cls} own=${s.breakdown.ownSleep?.ms.toFixed(2) ?? '-'} asked=${s.breakdown.ownSleep?.askedMs?.toFixed(2) ?? '-'} late=${s.breakdown.ownSleep?.timerLateMs?.toFixed(2) ?? '-'} (truth: asked ${s.armed?.askedMs.toFixed(2) ?? '-'}, slept ${s.armed ? ((s.wokeAt - s.armed.ts) * 1000).toFixed(2) : '-'})`,
    );
    process.stderr.write(
      `lab breakdown stall 20x5: ${t.all.length} XRUNs, ${t.stalls.length} after a stall (${t.unmatched} without a hit), ${whole.length} whole:\n  ${lines.join('\n  ')}\n`,
    );
    assert.ok(whole.length >= 2, `at least 2 whole stalls, got ${whole.length}`);
    for (const s of whole) {
      const b = s.breakdown;
      assert.equal(b.cls, 'application-late', b.summary);
      assert.deepEqual([b.parts[0]!.kind, b.parts[0]!.name], ['sleep', 'xrunhunt-play'], b.summary);
      // No kernel culprit: nothing but the writer's own sleep, its own timer's lateness and its
      // own run (after it woke) is named.
      const kernel = b.parts.filter(
        (p) => !(p.kind === 'sleep' || p.kind === 'own-run' || p.name.startsWith('its own timer')),
      );
      const kernelMs = kernel.reduce((n, p) => n + p.ms, 0);
      assert.ok(kernelMs <= 0.25 * b.latenessMs, `kernel parts ${kernelMs} ms: ${b.summary}`);
      assert.match(
        b.summary,
        /^the writer itself slept [\d.]+ ms \(xrunhunt-play.*no kernel code delayed it$/,
      );
      // The stall's length: what the writer asked for, within 1 ms of the injected 20 ms (the
      // kernel timestamps the arming and the expiry), and the sleep as timed from the arming to
      // the wake-up — equal to the trace's own numbers.
      const own = b.ownSleep!;
      assert.ok(own, 'ownSleep is set');
      assert.ok(Math.abs(own.askedMs! - 20) <= 1, `asked ${own.askedMs} ms`);
      assert.ok(Math.abs(own.askedMs! - s.armed!.askedMs) < 1e-3, 'asked = the trace’s arming');
      near(own.ms, (s.wokeAt - s.armed!.ts) * 1000, 1e-3, 'slept from the arming to the wake-up');
    }
    // Nothing else is taken for an own sleep: the writer sleeps only in snd_pcm_wait otherwise,
    // woken by the sound interrupt (or the XRUN's stop).
    const stray = t.others.filter((b) => b.ownSleep);
    assert.equal(stray.length, 0, stray.map((b) => b.summary).join('\n'));
  },
);

function near(actual: number, expected: number, margin: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= margin, `${what}: ${actual}, expected ${expected}`);
}
