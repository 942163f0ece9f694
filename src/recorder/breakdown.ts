// The per-XRUN latency breakdown: which thread was late, since when, and who used the time —
// net parts that add up to the lateness, as rtla timerlat's auto-analysis does for its own
// timer thread (tools/tracing/rtla/src/timerlat_aa.c: IRQ latency, blocking thread, IRQ /
// softirq / thread interference), here for the real audio path at every XRUN.
//
// The model follows the kernel's detection (sound/core/pcm_lib.c): a playback XRUN is found
// when snd_pcm_update_hw_ptr0 sees the buffer empty, in the period interrupt (or its thread, or
// snd-dummy's hrtimer softirq) or in the writer's own HWSYNC/STATUS/write call. The chain is
// period interrupt → (IRQ thread) → writer woken → writer runs and writes. The late link is the
// candidate thread (IRQ/softirq thread, writer) that was kept from running longest before the
// hit; a period interrupt that came late is an `irq-latency` part in front of it.
// Pure: events, hit and timing in; a breakdown out (naming interrupted code reads the shipped
// rule lists once, like the stack analysis).
import { loadRules, type RuleSet } from '../analysis/rules.js';
import type {
  BreakdownClass,
  BreakdownPart,
  DetectionShape,
  StreamTiming,
  TraceEvent,
  XrunBreakdown,
  XrunHit,
} from './breakdown-types.js';
import {
  cpuOccupancy,
  occupantsBetween,
  priorities,
  type CpuOccupancy,
  type Occupant,
} from './cpu-occupancy.js';
import { detectionShape, IRQ_THREAD_COMM, SOFTIRQ_THREAD_COMM } from './detection-shape.js';
import { interruptedCode } from './interrupted-function.js';
import { lateIrqStretches, soundIrqMatcher, type LateIrqStretch } from './sound-irq.js';
import { sleepEnd, type SleepEnd, type SoundContext } from './sleep-end.js';
import { inferWriter } from './stream-writer.js';
import { threadTimeline, type ThreadTimeline } from './thread-states.js';
import { LOST_EVENTS } from './trace-line.js';

/** What the caller may add: rule lists, the window start. */
export interface BreakdownOptions {
  /** Rule lists for naming interrupted code (default: the shipped ones). */
  rules?: RuleSet;
  /**
   * Where the recorder's window starts (default: the first event's time). A recorder passes
   * max(hit − breakdownLookbackSeconds, EventWindow.oldestTs()), so that a window its count cap
   * cut short is not taken for a covered one.
   */
  windowStart?: number;
}

/** How far before a hit the recorder should keep events: two buffers and a 15 ms margin. */
export function breakdownLookbackSeconds(timing: StreamTiming): number {
  return 2 * timing.bufferSeconds + 0.015;
}

type LateRole = XrunBreakdown['late']['role'];

interface Candidate {
  pid: number;
  comm: string;
  role: LateRole;
  tl: ThreadTimeline;
  /** Start of its current awake stretch (woken, or already awake at the window start). */
  awakeSince?: number;
  /** Start of its current sleep, when it sleeps at the hit. */
  asleepSince?: number;
  /** Its kernel priority as the events print it. */
  prio?: number;
}

/** A raw (unmerged) share of time. */
type RawPart = Omit<BreakdownPart, 'share'>;

const CLASS_OF: Record<BreakdownPart['kind'], BreakdownClass> = {
  'irq-latency': 'irq-latency',
  task: 'blocked-by-task',
  irq: 'interference',
  softirq: 'interference',
  'idle-exit': 'woken-late',
  unexplained: 'woken-late',
  'own-run': 'application-late',
  sleep: 'application-late',
};

/** Explains one XRUN from the events before it (about breakdownLookbackSeconds of them). */
export function breakdownXrun(
  events: readonly TraceEvent[],
  hit: XrunHit,
  timing: StreamTiming,
  options: BreakdownOptions = {},
): XrunBreakdown {
  // Events after the hit are read for one thing only: how a writer asleep at the hit woke up.
  const all = sorted(events);
  const evs = all.filter((e) => e.ts <= hit.ts);
  const t0 = Math.min(options.windowStart ?? evs[0]?.ts ?? hit.ts, hit.ts);
  const t1 = hit.ts;
  const shape = detectionShape(hit);
  const missing: string[] = [];
  const lost = evs.filter((e) => e.name === LOST_EVENTS && e.ts >= t0);
  if (lost.length > 0) {
    const n = lost.reduce((s, e) => s + Number(e.fields['count'] ?? 0), 0);
    missing.push(`${n} events were lost in the window (the trace buffer overflowed)`);
  }
  const isSound = soundIrqMatcher(evs, hit, timing);
  const stretches = lateIrqStretches(evs, isSound, timing.periodSeconds);
  const occ = cpuOccupancy(evs, t0, t1);
  const rules = (): RuleSet => options.rules ?? loadRules();

  const candidates = findCandidates(evs, hit, shape, timing, isSound, t0, t1);
  const detector = { comm: hit.comm, pid: hit.pid, cpu: hit.cpu };

  // The late link: the candidate whose delay covers most of the time before the hit — an awake
  // one from its wake-up, followed back along the chain that woke it (a late period interrupt,
  // an IRQ thread that was itself kept waiting); a sleeping writer for at most one buffer (the
  // time it had to write the next data).
  const ctx: ChainContext = { evs, stretches, occ, rules, timing, t0, t1 };
  const sound: SoundContext = { isSound, hit };
  let best: ChainResult | undefined;
  for (const c of candidates) {
    let r: ChainResult | undefined;
    const writer = c.role !== 'irq-thread' && c.role !== 'softirq-thread';
    if (c.awakeSince !== undefined && c.awakeSince < t1) {
      const chain = chainBefore(ctx, c, c.awakeSince, 0);
      r = {
        start: chain.start,
        parts: chain.parts.concat(accountStates(c, c.awakeSince, t1, occ, stretches, rules)),
        links: chain.links.concat([{ c, from: c.awakeSince, to: t1 }]),
        awake: true,
      };
      // Woken shortly before the hit from a long sleep it chose: that sleep is the late link.
      const own = writer ? ownSleepBefore(ctx, all, c, sound, c.awakeSince) : undefined;
      if (own && own.start < r.start) r = own;
    } else if (c.asleepSince !== undefined && writer) {
      const start = Math.max(c.asleepSince, t1 - timing.bufferSeconds, t0);
      const end = sleepEnd(all, c.pid, lastSwitchOut(all, c.pid, t1) ?? c.asleepSince, sound);
      if (end?.by === 'own-timer')
        r = ownSleepResult(
          ctx,
          c,
          end,
          Math.max(Math.min(end.armedTs ?? start, start), t1 - timing.bufferSeconds, t0),
        );
      else if (start < t1) {
        const parts = accountStates(c, start, t1, occ, stretches, rules);
        r = {
          start,
          // Woken by the sound path after the hit: it waited in poll/write for room that the
          // device never made (no period elapsed) — the wait is the device's, not the writer's.
          parts: end?.by === 'sound' ? parts.map((p) => noPeriodPart(p, c, evs, isSound)) : parts,
          links: [{ c, from: start, to: t1 }],
          awake: false,
        };
        if (end?.by === 'sound') r.deviceWait = end;
      }
    }
    // A writer that slept on its own timer into the last buffer before the hit, for at least a
    // buffer, let the buffer run dry itself: whatever came late after it woke (a period
    // interrupt it then waited for) only noticed the XRUN. That sleep is decisive.
    if (writer && !r?.ownSleep) {
      const drained = ownSleepIntoLastBuffer(ctx, all, c, sound);
      if (drained) r = { ...drained, decisive: true };
    } else if (r?.ownSleep && r.start <= t1 - timing.bufferSeconds + 1e-9) r.decisive = true;
    // Ties go to the awake candidate: it was on its way and still did not make it.
    if (
      r &&
      (!best ||
        (r.decisive === true && best.decisive !== true) ||
        (r.decisive === best.decisive &&
          (r.start < best.start || (r.start === best.start && r.awake && !best.awake))))
    )
      best = r;
  }

  if (!best) {
    missing.push(
      candidates.length === 0
        ? 'the late thread is unknown: no writer pid given and no task was woken by the sound interrupt in the window'
        : 'no candidate thread was waiting or asleep at the hit',
    );
    return finish(hit, shape, detector, undefined, t1, [], missing, t1);
  }
  // The late thread: the link of the chain that waited longest.
  const late = best.links.reduce((m, l) => (l.to - l.from > m.to - m.from ? l : m)).c;
  if (best.start < t0 - 1e-9) missing.push(windowMissing(best.start, t0));
  const due = Math.max(best.start, t0);
  if (late.tl.unseen) missing.push(`no event of ${late.comm} (pid ${late.pid}) in the window`);
  const parts = best.parts;
  const out = finish(hit, shape, detector, late, due, parts, missing, best.endTs ?? t1);
  if (best.ownSleep) {
    out.ownSleep = best.ownSleep;
    const o = best.ownSleep;
    if (out.cls === 'application-late') out.summary = ownSleepSummary(out, o);
    else if (out.parts[0]?.name.startsWith('its own timer'))
      out.summary =
        `${late.comm} (pid ${late.pid}, ${late.role}) slept in its own code, but its timer ${o.wokenBy} expired ` +
        `${(o.timerLateMs ?? 0).toFixed(2)} ms after the time it asked for (${ms(out.parts[0].ms)} of ${ms(out.latenessMs)}): the timer interrupt came late`;
  } else if (best.deviceWait && out.parts[0]?.name.startsWith(NO_PERIOD)) {
    const ran = evs.filter((e) => e.ts >= due && isSound(e)).length;
    out.summary =
      `${late.comm} (pid ${late.pid}, ${late.role}) waited ${ms(out.parts[0].ms)} of ${ms(out.latenessMs)} for room in the buffer: ` +
      `the sound interrupt ran ${ran} times meanwhile but no period elapsed (the device's position did not advance), ` +
      `and ${best.deviceWait.wokenBy} woke it after the XRUN`;
  } else if (out.parts[0]?.kind === 'sleep') {
    // The same trace shows an application that chose to sleep and a device whose position did
    // not advance (the driver found no period elapsed, so it woke nobody): say both.
    const ran = evs.filter((e) => e.ts >= due && isSound(e)).length;
    if (ran > 0)
      out.summary += ` (the sound interrupt ran ${ran} times meanwhile without waking it; if it sleeps in poll/write, the device's position did not advance)`;
  }
  return out;
}

interface ChainContext {
  evs: readonly TraceEvent[];
  stretches: readonly LateIrqStretch[];
  occ: CpuOccupancy;
  rules: () => RuleSet;
  timing: StreamTiming;
  t0: number;
  t1: number;
}

interface ChainResult {
  /** When the chain's first link was due. */
  start: number;
  parts: RawPart[];
  /** The threads of the chain and the time each one waited for (first link first). */
  links: { c: Candidate; from: number; to: number }[];
  awake: boolean;
  /** The writer's own sleep, when it is the late link. */
  ownSleep?: NonNullable<XrunBreakdown['ownSleep']>;
  /** The writer's sleep ended by the sound path after the hit: it waited for the device. */
  deviceWait?: SleepEnd;
  /** The writer's own sleep drained the buffer: it wins over any other chain. */
  decisive?: boolean;
  /** Where the lateness ends when not at the hit (a decisive sleep ends at its wake-up). */
  endTs?: number;
}

/**
 * The writer's latest sleep that its own timer ended within the last buffer before the hit,
 * asked for (or lasting) at least a buffer: the sleep in which the buffer ran dry, even when the
 * writer woke and then waited again before the XRUN was noticed.
 */
function ownSleepIntoLastBuffer(
  ctx: ChainContext,
  all: readonly TraceEvent[],
  c: Candidate,
  sound: SoundContext,
): ChainResult | undefined {
  const { t0, t1, timing } = ctx;
  const lastBuffer = t1 - timing.bufferSeconds;
  for (let i = all.length - 1; i >= 0; i--) {
    const e = all[i]!;
    if (e.ts > t1 || e.name !== 'sched_switch' || Number(e.fields['prev_pid']) !== c.pid) continue;
    if ((e.fields['prev_state'] ?? '').startsWith('R')) continue;
    const end = sleepEnd(all, c.pid, e.ts, sound);
    if (!end || end.to <= lastBuffer) return undefined;
    if (end.by !== 'own-timer' || end.to > t1) continue;
    const from = Math.min(end.armedTs ?? e.ts, e.ts);
    const asked = end.askedUntil === undefined ? end.to - from : end.askedUntil - from;
    if (asked < timing.bufferSeconds || from > lastBuffer) continue;
    // Due when it went to sleep instead of writing, late until its wake-up: the buffer ran dry
    // inside that sleep; what came after (the late interrupt it then waited for) only noticed
    // the XRUN, so it is not a part of the lateness.
    const r = ownSleepResult({ ...ctx, t1: end.to }, c, end, Math.max(from, t0));
    return { ...r, endTs: end.to };
  }
  return undefined;
}

/** The last switch-out of `pid` into a sleep (prev_state not R) at or before t. */
function lastSwitchOut(all: readonly TraceEvent[], pid: number, t: number): number | undefined {
  for (let i = all.length - 1; i >= 0; i--) {
    const e = all[i]!;
    if (e.ts > t || e.name !== 'sched_switch' || Number(e.fields['prev_pid']) !== pid) continue;
    return (e.fields['prev_state'] ?? '').startsWith('R') ? undefined : e.ts;
  }
  return undefined;
}

/**
 * The writer woke at `awake` from a sleep its own timer ended, long enough to drain the buffer
 * (what it asked for, else what it slept, at least a buffer): the sleep, then its states since.
 */
function ownSleepBefore(
  ctx: ChainContext,
  all: readonly TraceEvent[],
  c: Candidate,
  sound: SoundContext,
  awake: number,
): ChainResult | undefined {
  const from = lastSwitchOut(all, c.pid, awake);
  if (from === undefined) return undefined;
  const end = sleepEnd(all, c.pid, from, sound);
  if (end?.by !== 'own-timer' || Math.abs(end.to - awake) > 1e-9) return undefined;
  const asked =
    end.askedUntil === undefined ? end.to - from : end.askedUntil - (end.armedTs ?? from);
  if (asked < ctx.timing.bufferSeconds) return undefined;
  const start = Math.max(end.armedTs ?? from, ctx.t1 - ctx.timing.bufferSeconds, ctx.t0);
  if (start >= awake) return undefined;
  return ownSleepResult(ctx, c, end, start);
}

/**
 * The parts of a writer's own sleep from `start` (its due time) until it woke or the hit: the
 * sleep it asked for, then — when its timer expired after the time asked for — the timer's
 * lateness, then (woken before the hit) its states up to the hit. Interrupts during the sleep
 * are not carved out: its wake-up was never the interrupt's to give.
 */
function ownSleepResult(
  ctx: ChainContext,
  c: Candidate,
  end: SleepEnd,
  start: number,
): ChainResult {
  const { t1, occ, stretches, rules } = ctx;
  const woke = Math.min(end.to, t1);
  const asked =
    end.askedUntil === undefined ? woke : Math.min(Math.max(end.askedUntil, start), woke);
  const parts: RawPart[] = [];
  if (asked > start)
    parts.push({ kind: 'sleep', name: c.comm, pid: c.pid, ms: (asked - start) * 1000 });
  if (woke > asked)
    parts.push({
      kind: 'irq-latency',
      name: `its own timer ${end.wokenBy} expired late (after the time ${c.comm} asked for)`,
      ms: (woke - asked) * 1000,
    });
  if (end.to < t1) parts.push(...accountStates(c, end.to, t1, occ, stretches, rules));
  // The sleep began when it armed its timer (it was in its sleep call from then on, even when
  // its CPU then stalled before the switch-out), else at the switch-out.
  const own: NonNullable<XrunBreakdown['ownSleep']> = {
    ms: round6((end.to - Math.min(end.armedTs ?? end.from, end.from)) * 1000),
    wokenBy: end.wokenBy,
    wokeAfterHit: end.to > t1,
  };
  if (end.askedUntil !== undefined && end.armedTs !== undefined) {
    own.askedMs = round6((end.askedUntil - end.armedTs) * 1000);
    if (end.expiredTs !== undefined)
      own.timerLateMs = round6(Math.max(0, end.expiredTs - end.askedUntil) * 1000);
  }
  return {
    start,
    parts,
    links: [{ c, from: start, to: t1 }],
    awake: end.to < t1,
    ownSleep: own,
  };
}

const NO_PERIOD = 'no period elapsed';

/** The name of a wait for the device: the sound interrupt came but brought no period. */
function noPeriodPart(
  p: RawPart,
  c: Candidate,
  evs: readonly TraceEvent[],
  isSound: (e: TraceEvent) => boolean,
): RawPart {
  if (p.kind !== 'sleep' || p.pid !== c.pid) return p;
  const irq = evs.find((e) => e.name === 'irq_handler_entry' && isSound(e));
  const name = irq?.fields['name'] ?? 'the sound interrupt';
  return {
    kind: 'irq-latency',
    name: `${NO_PERIOD}: ${name} ran but the device's position did not advance (${c.comm} waited for room)`,
    ms: p.ms,
  };
}

/** The summary of an XRUN made by the writer's own sleep. */
function ownSleepSummary(b: XrunBreakdown, own: NonNullable<XrunBreakdown['ownSleep']>): string {
  const asked =
    own.askedMs === undefined
      ? ''
      : `, ${own.askedMs.toFixed(1)} ms asked for${own.timerLateMs !== undefined && own.timerLateMs >= 0.1 ? `, its timer expired ${own.timerLateMs.toFixed(1)} ms late` : ''}`;
  return (
    `the writer itself slept ${own.ms.toFixed(1)} ms (${b.late.comm}, pid ${b.late.pid}; ` +
    `woken by its own timer ${own.wokenBy}${asked}${own.wokeAfterHit ? ', after the XRUN' : ''}); ` +
    `no kernel code delayed it`
  );
}

/**
 * What came before a thread's wake-up at `awake`: the period interrupt that woke it, when it
 * came late (an irq-latency part from its due time), or the IRQ/softirq thread that woke it,
 * when that one was itself kept waiting for more than a quarter period (its own parts, then
 * what came before its wake-up in turn). Two links at most: interrupt → IRQ thread → writer.
 */
function chainBefore(
  ctx: ChainContext,
  c: Candidate,
  awake: number,
  depth: number,
): Omit<ChainResult, 'awake'> {
  const { timing, stretches, occ, t0, rules } = ctx;
  const s = stretches.find((x) => Math.abs(awake - x.came) <= timing.periodSeconds / 2);
  if (s) return { start: s.due, parts: lateIrqPrefix(s, awake, occ, t0, rules), links: [] };
  const by = c.tl.wakeups.find((w) => Math.abs(w.ts - awake) < 1e-9)?.by;
  if (
    depth < 2 &&
    by &&
    by.pid > 0 &&
    by.pid !== c.pid &&
    (IRQ_THREAD_COMM.test(by.comm) || SOFTIRQ_THREAD_COMM.test(by.comm))
  ) {
    const role: LateRole = IRQ_THREAD_COMM.test(by.comm) ? 'irq-thread' : 'softirq-thread';
    const w = candidate(ctx.evs, by.pid, by.comm, role, t0, awake);
    if (w.awakeSince !== undefined && awake - w.awakeSince > timing.periodSeconds / 4) {
      const before = chainBefore(ctx, w, w.awakeSince, depth + 1);
      return {
        start: before.start,
        parts: before.parts.concat(accountStates(w, w.awakeSince, awake, occ, stretches, rules)),
        links: before.links.concat([{ c: w, from: w.awakeSince, to: awake }]),
      };
    }
  }
  return { start: awake, parts: [], links: [] };
}

function candidate(
  evs: readonly TraceEvent[],
  pid: number,
  comm: string,
  role: LateRole,
  t0: number,
  t: number,
): Candidate {
  const tl = threadTimeline(evs, pid, t0, t);
  const c: Candidate = { pid, comm: tl.comm ?? comm, role, tl, ...episode(tl, t) };
  const prio = priorities(evs).get(pid);
  if (prio !== undefined) c.prio = prio;
  return c;
}

function windowMissing(due: number, t0: number): string {
  return `the window starts ${((t0 - due) * 1000).toFixed(2)} ms after the due time`;
}

function sorted(events: readonly TraceEvent[]): TraceEvent[] {
  const out = events.slice();
  for (let i = 1; i < out.length; i++)
    if (out[i]!.ts < out[i - 1]!.ts) return out.sort((a, b) => a.ts - b.ts);
  return out;
}

/** The threads that may be the late link, with their awake/asleep state at the hit. */
function findCandidates(
  evs: readonly TraceEvent[],
  hit: XrunHit,
  shape: DetectionShape,
  timing: StreamTiming,
  isSound: (e: TraceEvent) => boolean,
  t0: number,
  t1: number,
): Candidate[] {
  const out: Candidate[] = [];
  const add = (pid: number, comm: string, role: LateRole): void => {
    if (out.some((c) => c.pid === pid)) return;
    out.push(candidate(evs, pid, comm, role, t0, t1));
  };
  if (shape === 'irq-thread') add(hit.pid, hit.comm, 'irq-thread');
  if (shape === 'softirq' && SOFTIRQ_THREAD_COMM.test(hit.comm))
    add(hit.pid, hit.comm, 'softirq-thread');
  if (timing.writerPids && timing.writerPids.length > 0) {
    for (const pid of timing.writerPids)
      add(pid, pid === hit.pid ? hit.comm : `pid ${pid}`, 'writer');
  } else if (shape === 'process') add(hit.pid, hit.comm, 'detector');
  else {
    const w = inferWriter(evs, hit, shape, isSound);
    if (w) add(w.pid, w.comm, 'writer');
  }
  return out;
}

/** When the thread's current awake stretch (or sleep) began, at time t. */
function episode(tl: ThreadTimeline, t: number): Pick<Candidate, 'awakeSince' | 'asleepSince'> {
  const segs = tl.segments;
  let i = segs.length - 1;
  while (i >= 0 && segs[i]!.start > t) i--;
  if (i < 0) return {};
  const last = segs[i]!;
  if (last.state === 'sleeping') return { asleepSince: last.start };
  if (last.state === 'unknown') return {};
  let j = i;
  while (j > 0 && (segs[j - 1]!.state === 'running' || segs[j - 1]!.state === 'runnable')) j--;
  return { awakeSince: segs[j]!.start };
}

/** The parts of a late period interrupt: [due, came] irq-latency, then the CPU until `until`. */
function lateIrqPrefix(
  s: LateIrqStretch,
  until: number,
  occ: CpuOccupancy,
  t0: number,
  rules: () => RuleSet,
): RawPart[] {
  const from = Math.max(s.due, t0);
  const parts: RawPart[] = [];
  const came = Math.min(s.came, until);
  if (came > from) parts.push(irqLatencyPart(s, came - from, occ, rules));
  for (const seg of occupantsBetween(occ, s.cpu, Math.max(s.came, from), until))
    parts.push(occupantPart(seg.occupant, seg.end - seg.start, s.cpu, -1));
  return parts;
}

function irqLatencyPart(
  s: LateIrqStretch,
  seconds: number,
  occ: CpuOccupancy,
  rules: () => RuleSet,
): RawPart {
  const handler =
    s.entry.name === 'hrtimer_expire_entry'
      ? `hrtimer ${s.entry.fields['function'] ?? '?'}`
      : (s.entry.fields['name'] ?? `irq ${s.entry.fields['irq'] ?? '?'}`);
  if (!s.irqsOff)
    return {
      kind: 'irq-latency',
      name: `${handler} came late (no sign of interrupts off: the device, the hypervisor or a short irq-off section)`,
      cpu: s.cpu,
      ms: seconds * 1000,
    };
  const code = s.entry.stack ? interruptedCode(s.entry.stack, rules()) : undefined;
  // Without a stack: the task that had the CPU when the interrupt was due.
  const at = occupantsBetween(occ, s.cpu, s.due, s.due + 1e-9)[0]?.occupant;
  const task = at?.kind === 'task' ? at : { comm: s.entry.comm, pid: s.entry.pid };
  const part: RawPart = {
    kind: 'irq-latency',
    name: code?.function
      ? /^0x[0-9a-f]+$/i.test(code.function)
        ? // trace_pipe symbolizes when read: a module unloaded by then leaves a raw address.
          `${s.entry.comm}: ${code.function} (no symbol: its module may be gone)`
        : `${code.function}${code.module ? ` [${code.module}]` : ''}`
      : `${task.comm} (interrupts off or the CPU stalled; no stack at the interrupt)`,
    pid: code?.function ? s.entry.pid : task.pid,
    cpu: s.cpu,
    ms: seconds * 1000,
  };
  if (code && code.frames.length > 0) part.stack = code.frames;
  return part;
}

function occupantPart(
  o: Occupant,
  seconds: number,
  cpu: number,
  latePid: number,
  stack?: readonly string[],
): RawPart {
  const ms = seconds * 1000;
  switch (o.kind) {
    case 'idle':
      return { kind: 'idle-exit', name: `CPU ${cpu} idle`, cpu, ms };
    case 'irq':
      return { kind: 'irq', name: o.name, cpu, ms };
    case 'softirq':
      return { kind: 'softirq', name: o.name, cpu, ms };
    case 'task': {
      if (o.pid === latePid) return { kind: 'own-run', name: o.comm, pid: o.pid, cpu, ms };
      const p: RawPart = { kind: 'task', name: o.comm, pid: o.pid, cpu, ms };
      if (o.prio !== undefined) p.prio = o.prio;
      if (stack) p.stack = stack;
      return p;
    }
  }
}

/** The late thread's states from `from` to the hit, split by who had its CPU. */
function accountStates(
  late: Candidate,
  from: number,
  to: number,
  occ: CpuOccupancy,
  stretches: readonly LateIrqStretch[],
  rules: () => RuleSet,
): RawPart[] {
  const parts: RawPart[] = [];
  const off = stretches.filter((s) => s.irqsOff);
  for (const seg of late.tl.segments) {
    const a = Math.max(seg.start, from);
    const b = Math.min(seg.end, to);
    if (b <= a) continue;
    if (seg.state === 'unknown') {
      parts.push({ kind: 'unexplained', name: `no event of ${late.comm}`, ms: (b - a) * 1000 });
      continue;
    }
    if (seg.state === 'sleeping') {
      // Asleep while its wake-up (the period interrupt) was overdue: that is the IRQ's lateness.
      let rest = b - a;
      for (const s of stretches) {
        const o = overlap(a, b, s.due, s.came);
        if (o > 0) {
          parts.push(irqLatencyPart(s, o, occ, rules));
          rest -= o;
        }
      }
      if (rest > 0) parts.push({ kind: 'sleep', name: late.comm, pid: late.pid, ms: rest * 1000 });
      continue;
    }
    if (seg.cpu === undefined) {
      parts.push({ kind: 'unexplained', name: 'CPU unknown', ms: (b - a) * 1000 });
      continue;
    }
    const cpu = seg.cpu;
    const occs = occupantsBetween(occ, cpu, a, b);
    let covered = 0;
    for (const o of occs) {
      let len = o.end - o.start;
      covered += len;
      if (seg.state === 'runnable') {
        // Interrupts off on its CPU: no tick, no preemption — the IRQ-off code held it. Only
        // when it could have preempted what ran: a higher-priority task, or one that had
        // preemption off (need-resched set and still running), kept the CPU anyway.
        const o2 = o.occupant;
        const wouldPreempt =
          o2.kind !== 'task' ||
          o2.prio === undefined ||
          late.prio === undefined ||
          o2.prio >= late.prio;
        for (const s of wouldPreempt ? off : [])
          if (s.cpu === cpu && !s.preemptOff) {
            const ov = overlap(
              o.start,
              o.end,
              Math.max(s.due, s.silentFrom),
              Math.min(s.came, s.silentTo),
            );
            if (ov > 0) {
              parts.push(irqLatencyPart(s, ov, occ, rules));
              len -= ov;
            }
          }
        if (len > 0)
          parts.push(
            occupantPart(o.occupant, len, cpu, late.pid, blockerStack(o.interruptedStack, rules)),
          );
      } else {
        const own = o.occupant.kind === 'irq' || o.occupant.kind === 'softirq';
        parts.push(
          own
            ? occupantPart(o.occupant, len, cpu, late.pid)
            : { kind: 'own-run', name: late.comm, pid: late.pid, cpu, ms: len * 1000 },
        );
      }
    }
    const gap = b - a - covered;
    if (gap > 1e-9)
      parts.push({ kind: 'unexplained', name: `no event on CPU ${cpu}`, cpu, ms: gap * 1000 });
  }
  return parts;
}

function blockerStack(
  stack: readonly string[] | undefined,
  rules: () => RuleSet,
): readonly string[] | undefined {
  if (!stack) return undefined;
  const code = interruptedCode(stack, rules());
  return code.frames.length > 0 ? code.frames : undefined;
}

function overlap(a: number, b: number, c: number, d: number): number {
  return Math.max(0, Math.min(b, d) - Math.max(a, c));
}

/** Merges raw parts by kind+name+pid, sorts by size, computes shares, class and summary. */
function finish(
  hit: XrunHit,
  shape: DetectionShape,
  detector: XrunBreakdown['detector'],
  late: Candidate | undefined,
  due: number,
  raw: RawPart[],
  missing: string[],
  t1: number,
): XrunBreakdown {
  const merged = new Map<string, RawPart>();
  for (const p of raw) {
    if (!(p.ms > 0)) continue;
    const key = `${p.kind}\u0000${p.name}\u0000${p.pid ?? ''}`;
    const m = merged.get(key);
    if (m) {
      m.ms += p.ms;
      if (!m.stack && p.stack) m.stack = p.stack;
    } else merged.set(key, { ...p });
  }
  let list = [...merged.values()].sort((a, b) => b.ms - a.ms);
  const latenessMs = Math.max(0, (t1 - due) * 1000);
  if (list.length === 0)
    list = [
      { kind: 'unexplained', name: late ? 'nothing late in the window' : 'no late thread', ms: 0 },
    ];
  const total = list.reduce((s, p) => s + p.ms, 0);
  const parts: BreakdownPart[] = list.map((p) => ({
    ...p,
    ms: round6(p.ms),
    share: total > 0 ? p.ms / total : 1 / list.length,
  }));
  const top = parts[0]!;
  const cls = CLASS_OF[top.kind];
  const lateOut: XrunBreakdown['late'] = late
    ? { comm: late.comm, pid: late.pid, role: late.role }
    : { comm: hit.comm, pid: hit.pid, role: 'detector' };
  const out: XrunBreakdown = {
    ts: hit.ts,
    shape,
    detector,
    late: lateOut,
    dueTs: due,
    latenessMs: round6(latenessMs),
    parts,
    cls,
    summary: summarize(lateOut, top, latenessMs, late !== undefined),
    complete: missing.length === 0,
  };
  if (missing.length > 0) out.missing = missing.join('; ');
  return out;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function ms(x: number): string {
  return `${x.toFixed(2)} ms`;
}

/** The top part said plainly, with the numbers. */
export function summarize(
  late: XrunBreakdown['late'],
  top: BreakdownPart,
  latenessMs: number,
  found = true,
): string {
  if (!found) return 'no late thread found in the window: no breakdown';
  const who = `${late.comm} (pid ${late.pid}, ${late.role})`;
  const of = `${ms(top.ms)} of ${ms(latenessMs)}`;
  switch (top.kind) {
    case 'task':
      return `${who} was kept off CPU ${top.cpu ?? '?'} by ${top.name} (pid ${top.pid ?? '?'}${top.prio !== undefined ? `, prio ${top.prio}` : ''}) for ${of}`;
    case 'irq-latency':
      return `the period interrupt came late: ${top.name} for ${of} (${who} waited for it)`;
    case 'irq':
      return `interrupt handler ${top.name} ran ${of} while ${who} waited`;
    case 'softirq':
      return `softirq ${top.name} ran ${of} while ${who} waited`;
    case 'idle-exit':
      return `${who} was runnable while CPU ${top.cpu ?? '?'} stayed idle for ${of} (exit from idle or the hypervisor)`;
    case 'own-run':
      return `${who} was running itself for ${of}: its own processing took too long`;
    case 'sleep':
      return `${who} slept without a wake-up for ${of}: the application chose to wait`;
    case 'unexplained':
      return `${of} late with no event to explain it (${top.name})`;
  }
}
