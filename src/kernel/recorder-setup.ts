// Pure helpers of the flight recorder (recorder-source.ts is its IO shell): the names of its own
// tracefs instance and kprobe, the events it records, the sound card's interrupts from
// /proc/interrupts, the trigger lines, the buffer size, and a cheap parse of a trace_pipe
// line's header (CPU, timestamp, event name) for windowing. Text in, values out.
import { join } from 'node:path';
import type { XrunProbePoint } from './tracefs.js';

/** The recorder's own tracing instance: never the global buffer, never the kprobe backend's. */
export const RECORDER_INSTANCE = 'xrunhunt-recorder';
/** Its own kprobe (`p:xrunhunt_rec/xrun …`), so it works beside the kprobe backend's probe. */
export const RECORDER_GROUP = 'xrunhunt_rec';
export const RECORDER_EVENT = 'xrun';
/** Journal part name: session-<pid>-recorder.json. */
export const RECORDER_JOURNAL_PART = 'recorder';

/** One tracepoint the recorder enables (`events/<system>/<event>`). */
export interface RecorderEventName {
  system: string;
  event: string;
  /**
   * Enabled only when this event (`system:event`) could not be: a fallback. sched_wakeup repeats
   * sched_waking for every wake-up (the breakdown counts the pair once, src/recorder/
   * thread-states.ts), so recording both streams a third more scheduler events for nothing.
   */
  onlyWithout?: string;
}

/** The scheduler, interrupt and timer events the breakdown needs, in the order they are enabled. */
export const RECORDER_EVENTS: readonly RecorderEventName[] = [
  { system: 'sched', event: 'sched_switch' },
  { system: 'sched', event: 'sched_waking' },
  { system: 'sched', event: 'sched_wakeup', onlyWithout: 'sched:sched_waking' },
  { system: 'irq', event: 'irq_handler_entry' },
  { system: 'irq', event: 'irq_handler_exit' },
  { system: 'irq', event: 'softirq_entry' },
  { system: 'irq', event: 'softirq_exit' },
  { system: 'timer', event: 'hrtimer_expire_entry' },
  { system: 'timer', event: 'hrtimer_expire_exit' },
];

/**
 * The osnoise events (`osnoise:irq_noise`, `thread_noise`, …) when the kernel has them: off by
 * default, because they only fire while the osnoise/timerlat tracer runs.
 */
export const OSNOISE_SYSTEM = 'osnoise';

/**
 * Per-CPU ring buffer of the instance. Measured in the lab (/work/rec/capture2.sh, Debian 6.1
 * under TCG, HDA at 64-frame periods with dd beside it): ~16,000 events/s over 2 CPUs, i.e.
 * ~8,000 per CPU; a binary sched_switch entry is ~70 bytes, a stack entry ~300. 2 MiB per CPU
 * holds ~3 s of that rate, so a reader stalled by the load for 2 s loses nothing (0 LOST lines
 * in 111,455 captured). See recorderBufferKb for the rule.
 */
export const RECORDER_BUFFER_KB = 2048;

/** Buffer per CPU, KiB, for `eventsPerSecondPerCpu` held `seconds` long (rounded up to 256 KiB). */
export function recorderBufferKb(
  eventsPerSecondPerCpu: number,
  seconds: number,
  bytesPerEvent = 80,
): number {
  const kb = (eventsPerSecondPerCpu * seconds * bytesPerEvent) / 1024;
  return Math.max(256, Math.ceil(kb / 256) * 256);
}

/**
 * How long close() may go on reading what the kernel wrote before recording stopped (ms): twice
 * the reader's lag at the stop plus 5 s, within 10–60 s. A reader behind the kernel (measured in
 * the lab under TCG: 20.6 s behind after an 8 s phase, 353 of 382 delivered hits still unread)
 * would otherwise lose the run's last XRUNs without any counter saying so; the drain reads about
 * twice as fast as the live reader, since nothing new is written meanwhile.
 */
export function recorderDrainMs(lagAtStopSeconds: number | null): number {
  const ms = 2 * (lagAtStopSeconds ?? 0) * 1000 + 5000;
  return Math.min(60_000, Math.max(10_000, Math.round(ms)));
}

// Paths of the recorder's files inside one tracefs mount.
export function recorderPaths(tracefs: string) {
  const instance = join(tracefs, 'instances', RECORDER_INSTANCE);
  const event = (system: string, name: string) => join(instance, 'events', system, name);
  return {
    kprobeEvents: join(tracefs, 'kprobe_events'),
    kprobeProfile: join(tracefs, 'kprobe_profile'),
    instance,
    bufferSizeKb: join(instance, 'buffer_size_kb'),
    traceClock: join(instance, 'trace_clock'),
    symOffset: join(instance, 'options', 'sym-offset'),
    cpumask: join(instance, 'tracing_cpumask'),
    tracingOn: join(instance, 'tracing_on'),
    tracePipe: join(instance, 'trace_pipe'),
    eventsDir: join(instance, 'events'),
    enable: (e: RecorderEventName) => join(event(e.system, e.event), 'enable'),
    trigger: (e: RecorderEventName) => join(event(e.system, e.event), 'trigger'),
    filter: (e: RecorderEventName) => join(event(e.system, e.event), 'filter'),
  };
}

/** The recorder's xrun kprobe as an event name. */
export const RECORDER_XRUN_EVENT: RecorderEventName = {
  system: RECORDER_GROUP,
  event: RECORDER_EVENT,
};

// The line appended to kprobe_events for the recorder's own probe (same points as the backend's).
export function recorderKprobeDefinition(point: XrunProbePoint, arch = 'x64'): string {
  let args = point.fetchArgs ? ` ${point.fetchArgs}` : '';
  if (arch !== 'x64') args = args.replaceAll('%di', '$arg1').replaceAll('%si', '$arg2');
  return `p:${RECORDER_GROUP}/${RECORDER_EVENT} ${point.symbol}${args}`;
}

// The line that removes the recorder's probe again (teardown and the crash journal).
export function recorderKprobeRemoval(): string {
  return `-:${RECORDER_GROUP}/${RECORDER_EVENT}`;
}

/** One interrupt of the sound card as /proc/interrupts names it. */
export interface SoundIrq {
  irq: number;
  /** The action name as irq_handler_entry prints it (`snd_hda_intel:card0`). */
  name: string;
}

/**
 * The sound card's interrupts: numbered lines of /proc/interrupts whose action names a snd_*
 * driver (` 33:  13  15  PCI-MSI 81920-edge  snd_hda_intel:card0`). Shared lines list every
 * action, comma-separated; the snd_ one is taken.
 */
export function parseSoundIrqs(procInterrupts: string): SoundIrq[] {
  const out: SoundIrq[] = [];
  for (const line of procInterrupts.split('\n')) {
    const m = /^\s*(\d+):\s/.exec(line);
    if (!m) continue;
    const actions = line.slice(m[0].length).split(/[\s,]+/);
    const snd = actions.find((a) => /^snd[_-]/.test(a));
    if (snd) out.push({ irq: Number(m[1]), name: snd });
  }
  return out;
}

// The trigger on irq_handler_entry: a stack at the card's interrupts only (the interrupted code).
export function irqStacktraceTrigger(irqs: readonly SoundIrq[]): string | null {
  if (irqs.length === 0) return null;
  return `stacktrace if ${irqs.map((i) => `irq==${i.irq}`).join(' || ')}`;
}

/** What tracing_cpumask takes for a CPU list: a hex mask (`3` for CPUs 0–1). */
export function cpuMaskHex(cpus: readonly number[]): string {
  let mask = 0n;
  for (const c of cpus) if (Number.isInteger(c) && c >= 0 && c < 1024) mask |= 1n << BigInt(c);
  const hex = mask.toString(16);
  // The kernel takes comma-separated 32-bit groups above 32 CPUs (`1,00000000`).
  const groups: string[] = [];
  for (let end = hex.length; end > 0; end -= 8)
    groups.unshift(hex.slice(Math.max(0, end - 8), end));
  return groups.map((g, i) => (i === 0 ? g : g.padStart(8, '0'))).join(',');
}

/** The header of one trace_pipe event line (`comm-pid [cpu] flags ts: name: …`). */
export interface TraceLineHead {
  cpu: number;
  /** Trace clock, seconds. */
  ts: number;
  /** Event name (`sched_switch`, `xrun`, `<stack trace>`), sym-offset suffix removed. */
  name: string;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

// The end of `ts: ` (digits, '.', digits, ': ') starting at k: the index of its colon, or -1.
function timestampEnd(line: string, k: number): number {
  let j = k;
  while (isDigit(line.charCodeAt(j))) j++;
  if (j === k || line.charCodeAt(j) !== 46) return -1;
  const fraction = ++j;
  while (isDigit(line.charCodeAt(j))) j++;
  if (j === fraction || line.charCodeAt(j) !== 58 || line.charCodeAt(j + 1) !== 32) return -1;
  return j;
}

/**
 * Parses the header of an event line; null for a stack frame (` => …`) or anything else. The
 * header is `[CPU] flags ts: name:` after the `comm-pid` column, found by scanning (a comm may
 * hold anything, `[` included): this runs for every line at 10^4–10^5 lines/s, and a hand scan
 * costs ~0.3–0.5 µs a line against ~0.8–1.8 µs for the regular expression it replaced (same
 * result on all 154,543 lines of a lab capture).
 */
export function parseTraceLineHead(line: string): TraceLineHead | null {
  if (line.startsWith(' =>')) return null;
  for (let i = line.indexOf('['); i >= 0; i = line.indexOf('[', i + 1)) {
    let j = i + 1;
    let cpu = 0;
    while (j - i <= 4 && isDigit(line.charCodeAt(j))) cpu = cpu * 10 + line.charCodeAt(j++) - 48;
    if (j === i + 1 || line.charCodeAt(j) !== 93 || line.charCodeAt(j + 1) !== 32) continue;
    let k = j + 2;
    let end = timestampEnd(line, k);
    if (end < 0) {
      // The flags column (`d.h1.`), then the padding before the timestamp.
      let f = k;
      for (; f < line.length; f++) {
        const c = line.charCodeAt(f);
        if (c === 32 || c === 58 || c === 9) break;
      }
      if (f === k || line.charCodeAt(f) !== 32) continue;
      while (line.charCodeAt(f) === 32) f++;
      k = f;
      end = timestampEnd(line, k);
      if (end < 0) continue;
    }
    const from = end + 2;
    const colon = line.indexOf(':', from);
    // `<stack trace>` has no colon after its name; every other event has one.
    let name = colon < 0 ? line.slice(from).trimEnd() : line.slice(from, colon);
    if (name.length === 0) continue;
    if (name.includes('+0x')) name = name.replace(/\+0x[0-9a-f]+\/0x[0-9a-f]+$/, '');
    return { cpu, ts: Number(line.slice(k, end)), name };
  }
  return null;
}

/**
 * True for the recorder's own xrun hit: the event `xrun` whose text is the probe's location
 * (`xrun: (__snd_pcm_xrun+0x0/0xc0 [snd_pcm])`), recorded only in the recorder's instance.
 */
export function isRecorderHit(line: string, head: TraceLineHead | null): boolean {
  return head !== null && head.name === RECORDER_EVENT && /:\s+xrun:\s+\(/.test(line);
}

/** What the ring buffer itself says it lost, summed over the instance's per_cpu/cpuN/stats. */
export interface RingBufferLoss {
  /** Events overwritten before they were read (`overrun`). */
  overrun: number;
  /** Events lost because the writer wrapped the buffer mid-event (`commit overrun`). */
  commitOverrun: number;
  /** Events refused, e.g. written while the buffer was being written on that CPU (`dropped events`). */
  dropped: number;
}

// Adds one per_cpu/cpuN/stats file (`overrun: 0`, `commit overrun: 0`, `dropped events: 0`) to `into`.
export function addRingBufferStats(text: string, into: RingBufferLoss): RingBufferLoss {
  const num = (key: string): number => {
    const m = new RegExp(`^${key}:\\s*(\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  return {
    overrun: into.overrun + num('overrun'),
    commitOverrun: into.commitOverrun + num('commit overrun'),
    dropped: into.dropped + num('dropped events'),
  };
}

/**
 * The hit count of the recorder's own probe from kprobe_profile. The profile prints the event
 * name only (`  xrun   923   0`), and the kprobe backend's probe has the same name; both files
 * list the probes in the same (creation) order, so the recorder's line is found by its position
 * among the `xrun` probes of kprobe_events. Null when that cannot be told.
 */
export function recorderProbeHits(kprobeEvents: string, kprobeProfile: string): number | null {
  const named = kprobeEvents
    .split('\n')
    .map((l) => /^[pr]:([^/\s]+)\/(\S+)\s/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && m[2] === RECORDER_EVENT);
  const index = named.findIndex((m) => m[1] === RECORDER_GROUP);
  if (index < 0) return null;
  const rows = kprobeProfile
    .split('\n')
    .map((l) => /^\s*(\S+)\s+(\d+)\s+(\d+)\s*$/.exec(l))
    .filter(
      (m): m is RegExpExecArray =>
        m !== null && (m[1] === RECORDER_EVENT || m[1]!.endsWith(`/${RECORDER_EVENT}`)),
    );
  if (rows.length !== named.length) return null;
  return Number(rows[index]![2]);
}
