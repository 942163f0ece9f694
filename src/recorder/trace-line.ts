// ftrace text (the trace_pipe of the recorder's own tracefs instance) into TraceEvents. Pure and
// streaming: one line in at a time, events out once their `<stack trace>` block (if any) is over.
// The line grammar is the kernel's trace_print_context()/trace_print_lat_context():
//   `comm-pid [(tgid)] [cpu] flags ts: name: fields`
// (flags are 4–7 chars by era, absent without the latency format; the tgid column only with the
// `record-tgid` option; comm may hold spaces and dashes: `irq/33-snd_hda_-159`, `<idle>-0`).
import type { TraceEvent } from './breakdown-types.js';

/** The name given to the synthetic event that stands for a `CPU:N [LOST M EVENTS]` line. */
export const LOST_EVENTS = 'lost_events';

/** Lines longer than this are skipped and counted (a corrupt or foreign line, never an event). */
export const MAX_TRACE_LINE = 4096;

/** What a parser has seen, for the recorder's status and the breakdown's `complete`. */
export interface TraceParserStats {
  lines: number;
  events: number;
  /** Lines over MAX_TRACE_LINE, skipped. */
  tooLong: number;
  /** Lines that are neither an event, a stack frame nor a lost-events line. */
  unparsed: number;
  /** Sum of the counts of all `[LOST N EVENTS]` lines. */
  lostEvents: number;
}

/** The streaming parser: push lines (without their newline), then end() to flush the last event. */
export interface TraceParser {
  push(line: string): void;
  end(): void;
  readonly stats: Readonly<TraceParserStats>;
}

// comm (lazy, may contain spaces/dashes) - pid, optional (tgid), [cpu], optional flags, ts:
const HEAD =
  /^\s*(.+?)-(\d+)\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[(\d+)\]\s+(?:(\S{4,7})\s+)?(\d+\.\d+):\s+(.*)$/;
const LOST = /^CPU:(\d+) \[LOST (\d+) EVENTS\]\s*$/;
const FRAME = /^\s*=>\s+(.+?)\s*$/;
const STACK_EVENT = /^<(?:user )?stack trace>\s*$/;
const NAME = /^([A-Za-z_][\w.]*):\s?(.*)$/;

// The fields of the events the breakdown reads, in print order (values may hold spaces: comm).
const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  sched_switch: [
    'prev_comm',
    'prev_pid',
    'prev_prio',
    'prev_state',
    'next_comm',
    'next_pid',
    'next_prio',
  ],
  sched_waking: ['comm', 'pid', 'prio', 'success', 'target_cpu'],
  sched_wakeup: ['comm', 'pid', 'prio', 'success', 'target_cpu'],
  sched_wakeup_new: ['comm', 'pid', 'prio', 'success', 'target_cpu'],
  irq_handler_entry: ['irq', 'name'],
  irq_handler_exit: ['irq', 'ret'],
  hrtimer_expire_entry: ['hrtimer', 'function', 'now'],
  hrtimer_expire_exit: ['hrtimer'],
};

// One compiled key pattern per known event (compiling it per line was a third of the
// breakdown's time: 56 of 186 s in a PipeWire watch under TCG).
const KEY_PATTERNS = new Map<readonly string[], RegExp>();

/** Splits `k1=v1 k2=v 2 ==> k3=v3` by the known keys, so values keep their spaces. */
function fieldsByKeys(text: string, keys: readonly string[]): Record<string, string> {
  const marks: { key: string; at: number; start: number }[] = [];
  let re = KEY_PATTERNS.get(keys);
  if (!re) {
    re = new RegExp(`(?:^|\\s)(${keys.join('|')})=`, 'g');
    KEY_PATTERNS.set(keys, re);
  }
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text))
    marks.push({ key: m[1]!, at: m.index, start: m.index + m[0].length });
  const out: Record<string, string> = {};
  for (let i = 0; i < marks.length; i++) {
    const end = i + 1 < marks.length ? marks[i + 1]!.at : text.length;
    let value = text.slice(marks[i]!.start, end).trim();
    if (value.endsWith('==>')) value = value.slice(0, -3).trimEnd();
    if (!(marks[i]!.key in out)) out[marks[i]!.key] = value;
  }
  return out;
}

/** The generic `key=value` fields of any other event; softirq's `vec=9 [action=RCU]` included. */
function genericFields(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(?:^|[\s[(])(\w+)=([^\s\])]*)/g)) out[m[1]!] ??= m[2]!;
  // A kprobe prints its location first: `(__snd_pcm_xrun+0x0/0xc0 [snd_pcm])`.
  const loc = /^\(([^)]*)\)/.exec(text);
  if (loc) out['location'] = loc[1]!;
  return out;
}

/** The fields of one event's text by its name. */
export function parseEventFields(name: string, text: string): Record<string, string> {
  const keys = KNOWN_KEYS[name];
  return keys ? fieldsByKeys(text, keys) : genericFields(text);
}

/** One line, classified: an event head, a stack frame, a stack-trace head, lost events, or other. */
export type TraceLine =
  | { kind: 'event'; event: TraceEvent }
  | { kind: 'stack'; cpu: number; ts: number }
  | { kind: 'frame'; frame: string }
  | { kind: 'lost'; cpu: number; count: number }
  | { kind: 'other' };

/** Parses one trace_pipe line (no newline) on its own. */
export function parseTraceLine(line: string): TraceLine {
  const lost = LOST.exec(line);
  if (lost) return { kind: 'lost', cpu: Number(lost[1]), count: Number(lost[2]) };
  const frame = FRAME.exec(line);
  if (frame) return { kind: 'frame', frame: frame[1]! };
  const head = HEAD.exec(line);
  if (!head) return { kind: 'other' };
  const [, comm, pid, cpu, flags, ts, rest] = head;
  if (STACK_EVENT.test(rest!)) return { kind: 'stack', cpu: Number(cpu), ts: Number(ts) };
  const named = NAME.exec(rest!);
  if (!named) return { kind: 'other' };
  const name = named[1]!;
  return {
    kind: 'event',
    event: {
      cpu: Number(cpu),
      ts: Number(ts),
      comm: comm!.trim(),
      pid: Number(pid),
      flags: flags ?? '',
      name,
      fields: parseEventFields(name, named[2]!),
    },
  };
}

/** Lines an event waits for its `<stack trace>` while other CPUs' events come in between. */
const STACK_WAIT_LINES = 16;

/**
 * A streaming parser: every event is handed to onEvent once the lines that may belong to it (a
 * `<stack trace>` block, which trace_pipe may print after a few other CPUs' events) are over; a
 * lost-events line becomes a LOST_EVENTS event at the time of the last event seen, so a window
 * that holds it knows it is not complete. Events of different CPUs may come out slightly out of
 * order (EventWindow sorts). `classify` parses one line (parseTraceLine; a memo of it where the
 * same lines are parsed again, as in overlapping windows): its events are read, never changed.
 */
export function createTraceParser(
  onEvent: (e: TraceEvent) => void,
  classify: (line: string) => TraceLine = parseTraceLine,
): TraceParser {
  const stats: TraceParserStats = { lines: 0, events: 0, tooLong: 0, unparsed: 0, lostEvents: 0 };
  // The newest event of each CPU, kept until its stack (if any) is read.
  const held = new Map<number, { event: TraceEvent; frames?: string[]; age: number }>();
  let frameTarget: { frames?: string[] } | undefined;
  let lastTs = 0;
  const emit = (cpu: number): void => {
    const h = held.get(cpu);
    if (!h) return;
    held.delete(cpu);
    if (frameTarget === h) frameTarget = undefined;
    stats.events++;
    onEvent(h.frames && h.frames.length > 0 ? { ...h.event, stack: h.frames } : h.event);
  };
  const hold = (e: TraceEvent): void => {
    for (const [cpu, h] of held) if (++h.age > STACK_WAIT_LINES) emit(cpu);
    emit(e.cpu);
    held.set(e.cpu, { event: e, age: 0 });
  };
  return {
    stats,
    push(line: string): void {
      stats.lines++;
      if (line.length > MAX_TRACE_LINE) {
        stats.tooLong++;
        return;
      }
      const l = classify(line);
      if (l.kind !== 'frame') frameTarget = undefined;
      switch (l.kind) {
        case 'frame':
          if (frameTarget?.frames) frameTarget.frames.push(l.frame);
          else stats.unparsed++;
          return;
        case 'stack': {
          // The stack belongs to the newest event of its CPU (the trigger's event).
          const h = held.get(l.cpu);
          if (h && !h.frames) {
            h.frames = [];
            frameTarget = h;
          } else stats.unparsed++;
          return;
        }
        case 'event':
          lastTs = Math.max(lastTs, l.event.ts);
          hold(l.event);
          return;
        case 'lost':
          stats.lostEvents += l.count;
          emit(l.cpu);
          stats.events++;
          onEvent({
            cpu: l.cpu,
            ts: lastTs,
            comm: '',
            pid: -1,
            flags: '',
            name: LOST_EVENTS,
            fields: { count: String(l.count) },
          });
          return;
        case 'other':
          if (line.trim() !== '' && !line.startsWith('#')) stats.unparsed++;
          return;
      }
    },
    end(): void {
      const rest = [...held.values()].sort((a, b) => a.event.ts - b.event.ts);
      for (const h of rest) emit(h.event.cpu);
    },
  };
}

/** Parses a whole trace text at once (fixtures, files): the events in input order. */
export function parseTraceText(text: string): { events: TraceEvent[]; stats: TraceParserStats } {
  const events: TraceEvent[] = [];
  const parser = createTraceParser((e) => events.push(e));
  for (const line of text.split(/\r?\n/)) parser.push(line);
  parser.end();
  return { events, stats: { ...parser.stats } };
}

/**
 * parseTraceLine with a memo by line text, for parsing the same lines many times: the
 * recorder's windows overlap (a PipeWire watch under load: ~50 hits a second, windows of
 * 1.4 s, so each line sits in dozens of them). The TraceLines it returns are shared.
 */
export function memoTraceLineParser(): (line: string) => TraceLine {
  const seen = new Map<string, TraceLine>();
  return (line) => {
    let l = seen.get(line);
    if (l === undefined) {
      l = parseTraceLine(line);
      seen.set(line, l);
    }
    return l;
  };
}
