// The flight recorder's memory, pure: a bounded time window of raw trace_pipe lines (the last ~2 s
// by the lines' own timestamps, hard caps on lines and bytes), the recorder's xrun hits found in
// it with their stack block, and for each hit the lines [hit − W, hit] frozen as one window. The
// first and the last N windows are kept; everything else is counted. Lines in, windows out.
import { isRecorderHit, parseTraceLineHead } from '../kernel/recorder-setup.js';

/** One frozen window: the hit line and every recorded line of [hit − W, hit] plus the hit's stack. */
export interface RecorderWindow {
  hit: { line: string; ts: number; cpu: number };
  lines: string[];
  /**
   * Lines recorded after the hit, up to W after it (its stack excluded): how a writer asleep at
   * the hit woke up — by its own timer or by the XRUN's stop (src/recorder/sleep-end.ts).
   */
  after?: string[];
}

export interface RecorderWindowLimits {
  /** How far back the live ring reaches, seconds of trace time. */
  ringSeconds: number;
  ringMaxLines: number;
  ringMaxBytes: number;
  /** Windows kept from the start and from the end of the run. */
  keepFirst: number;
  keepLast: number;
  /** Caps of one window (the lines nearest the hit are kept). */
  windowMaxLines: number;
  windowMaxBytes: number;
  /** A hit whose stack has not come this long (trace time) after it is frozen without it. */
  stackWaitSeconds: number;
}

/** ~2 s of the lab's measured 16,000 events/s fits the caps; windows ≤ 400 × 256 KiB. */
export const DEFAULT_WINDOW_LIMITS: RecorderWindowLimits = {
  ringSeconds: 2,
  ringMaxLines: 100_000,
  ringMaxBytes: 16 << 20,
  keepFirst: 200,
  keepLast: 200,
  windowMaxLines: 4_000,
  windowMaxBytes: 256 << 10,
  stackWaitSeconds: 0.1,
};

/** W = max(2 × buffer time, 50 ms): the window before a hit that the breakdown needs. */
export function windowSeconds(bufferSeconds: number | null): number {
  return Math.max(2 * (bufferSeconds ?? 0), 0.05);
}

interface RingLine {
  line: string;
  /** Trace time of the line's event (stack frames carry their `<stack trace>` header's). */
  ts: number;
  cpu: number;
}

interface PendingHit {
  hit: RingLine;
  seconds: number;
  /** The hit's own `<stack trace>` block once it was seen. */
  stack: RingLine[] | null;
  collecting: boolean;
}

/** Counters for reports. */
export interface RecorderWindowCounts {
  hits: number;
  windowsKept: number;
  /** Windows frozen but not kept (beyond the first and last N). */
  windowsDropped: number;
  /** Windows cut by their caps, or reaching before the ring's oldest line. */
  windowsTruncated: number;
  /** Hits frozen without a stack block. */
  hitsWithoutStack: number;
  /** Lines evicted from the ring by the line/byte caps before they were 2 s old. */
  ringEvictedEarly: number;
}

/** Keeps the live ring and the hit windows; push() every line in trace_pipe order. */
export class RecorderWindows {
  private ring: RingLine[] = [];
  private start = 0;
  private ringBytes = 0;
  private lastTs = 0;
  private lastCpu = 0;
  private pending: PendingHit[] = [];
  /**
   * Lines per event name (`sched_switch`, `<stack trace>`, …; stack frames as ` =>`), counted
   * only when the census was asked for (the benchmark: what dominates the stream).
   */
  readonly byEvent = new Map<string, number>();
  private readonly first: RecorderWindow[] = [];
  private last: RecorderWindow[] = [];
  /** Kept windows still collecting their `after` lines, until trace time `until`. */
  private open: { w: RecorderWindow & { after: string[] }; until: number; bytes: number }[] = [];
  readonly counts: RecorderWindowCounts = {
    hits: 0,
    windowsKept: 0,
    windowsDropped: 0,
    windowsTruncated: 0,
    hitsWithoutStack: 0,
    ringEvictedEarly: 0,
  };

  constructor(
    /** W for a hit, asked when it is seen (the buffer time is known once playback opened). */
    private readonly windowFor: () => number,
    private readonly limits: RecorderWindowLimits = DEFAULT_WINDOW_LIMITS,
    /** Count lines per event name into byEvent. */
    private readonly census = false,
  ) {}

  push(line: string): void {
    const head = parseTraceLineHead(line);
    if (this.census) {
      const name = head ? head.name : line.startsWith(' =>') ? ' =>' : 'other';
      this.byEvent.set(name, (this.byEvent.get(name) ?? 0) + 1);
    }
    if (head) {
      this.lastTs = head.ts;
      this.lastCpu = head.cpu;
    }
    const entry: RingLine = { line, ts: this.lastTs, cpu: this.lastCpu };
    this.settle(entry, head);
    this.ring.push(entry);
    if (this.open.length > 0) this.collectAfter(entry);
    this.ringBytes += line.length + 1;
    this.evict();
    if (head && isRecorderHit(line, head)) {
      this.counts.hits++;
      this.pending.push({ hit: entry, seconds: this.windowFor(), stack: null, collecting: false });
    }
  }

  /** Freezes what is still pending (end of the run). */
  finish(): void {
    for (const p of this.pending) this.freeze(p);
    this.pending = [];
  }

  /** The kept windows, oldest first. */
  windows(): RecorderWindow[] {
    return [...this.first, ...this.last];
  }

  // Feeds a new line to the pending hits: their stack block, or the end of it.
  private settle(entry: RingLine, head: ReturnType<typeof parseTraceLineHead>): void {
    if (this.pending.length === 0) return;
    const frame = entry.line.startsWith(' =>');
    const keep: PendingHit[] = [];
    for (const p of this.pending) {
      if (p.collecting) {
        if (frame) {
          p.stack!.push(entry);
          keep.push(p);
        } else {
          p.collecting = false;
          this.freeze(p);
        }
        continue;
      }
      if (
        p.stack === null &&
        head &&
        head.name === '<stack trace>' &&
        head.cpu === p.hit.cpu &&
        head.ts >= p.hit.ts &&
        !this.pending.some((q) => q.collecting)
      ) {
        p.stack = [entry];
        p.collecting = true;
        keep.push(p);
        continue;
      }
      if (head && head.ts > p.hit.ts + this.limits.stackWaitSeconds) {
        this.freeze(p);
        continue;
      }
      keep.push(p);
    }
    this.pending = keep;
  }

  // Adds a line to the open windows' `after`; closes those it is past.
  private collectAfter(entry: RingLine): void {
    const l = this.limits;
    this.open = this.open.filter((o) => {
      if (entry.ts > o.until) return false;
      if (
        o.w.after.length >= l.windowMaxLines ||
        o.bytes + entry.line.length + 1 > l.windowMaxBytes
      )
        return false;
      o.w.after.push(entry.line);
      o.bytes += entry.line.length + 1;
      return true;
    });
  }

  private freeze(p: PendingHit): void {
    if (!p.stack) this.counts.hitsWithoutStack++;
    const from = p.hit.ts - p.seconds;
    const lines: string[] = [];
    let bytes = 0;
    let truncated = false;
    // Backwards from the hit: the nearest lines are the ones a capped window keeps.
    let i = this.ring.length - 1;
    while (i >= this.start && this.ring[i] !== p.hit) i--;
    const hitIndex = i;
    if (hitIndex < this.start) {
      // The hit itself was evicted (a flood): the window is what remains at or before its time.
      truncated = true;
      i = this.ring.length - 1;
      while (i >= this.start && this.ring[i]!.ts > p.hit.ts) i--;
    }
    for (; i >= this.start; i--) {
      const r = this.ring[i]!;
      if (r.ts < from) break;
      // Other CPUs' later lines that arrived before the hit's stack; the stack is added last.
      if (r.ts > p.hit.ts || p.stack?.includes(r)) continue;
      if (
        lines.length >= this.limits.windowMaxLines ||
        bytes + r.line.length + 1 > this.limits.windowMaxBytes
      ) {
        truncated = true;
        break;
      }
      lines.push(r.line);
      bytes += r.line.length + 1;
    }
    if (i < this.start && this.start > 0 && this.ring[this.start]!.ts > from) truncated = true;
    lines.reverse();
    if (hitIndex < this.start) lines.push(p.hit.line);
    if (p.stack) lines.push(...p.stack.map((r) => r.line));
    if (truncated) this.counts.windowsTruncated++;
    const after: string[] = [];
    const w = { hit: { line: p.hit.line, ts: p.hit.ts, cpu: p.hit.cpu }, lines, after };
    this.keep(w);
    // What came after the hit so far (other CPUs' lines before its stack, lines after the stack),
    // then every line up to hit + W as it comes (collectAfter).
    const o = { w, until: p.hit.ts + p.seconds, bytes: 0 };
    for (let k = Math.max(hitIndex + 1, this.start); k < this.ring.length; k++) {
      const r = this.ring[k]!;
      if (r.ts < p.hit.ts || p.stack?.includes(r)) continue;
      o.w.after.push(r.line);
      o.bytes += r.line.length + 1;
    }
    this.open.push(o);
  }

  private keep(w: RecorderWindow): void {
    if (this.first.length < this.limits.keepFirst) {
      this.first.push(w);
      this.counts.windowsKept++;
      return;
    }
    if (this.limits.keepLast === 0) {
      this.counts.windowsDropped++;
      return;
    }
    this.last.push(w);
    if (this.last.length > this.limits.keepLast) {
      this.last.shift();
      this.counts.windowsDropped++;
    } else this.counts.windowsKept++;
  }

  private evict(): void {
    const l = this.limits;
    // A pending hit's line must stay until it is frozen (its window reaches back from it).
    const oldestPending = this.pending.length
      ? this.pending[0]!.hit.ts - this.pending[0]!.seconds
      : Infinity;
    while (this.start < this.ring.length - 1) {
      const r = this.ring[this.start]!;
      const old = this.lastTs - r.ts > l.ringSeconds && r.ts < oldestPending;
      const over =
        this.ring.length - this.start > l.ringMaxLines || this.ringBytes > l.ringMaxBytes;
      if (!old && !over) break;
      if (!old) this.counts.ringEvictedEarly++;
      this.ringBytes -= r.line.length + 1;
      this.start++;
    }
    if (this.start > 4096 && this.start * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.start);
      this.start = 0;
    }
  }
}

/** recorder.txt: every kept window, a header line before each, within `maxBytes`. */
export function renderRecorderText(
  windows: readonly RecorderWindow[],
  counts: RecorderWindowCounts,
  maxBytes = 32 << 20,
): string {
  const out: string[] = [
    `# xrunhunt flight recorder: ${counts.hits} xrun hit(s), ${counts.windowsKept} window(s) kept, ${counts.windowsDropped} dropped, ${counts.windowsTruncated} truncated, ${counts.hitsWithoutStack} without stack`,
  ];
  let bytes = out[0]!.length + 1;
  let written = 0;
  for (const w of windows) {
    const after = w.after ?? [];
    const block = [
      `# window ${written + 1}: hit at ${w.hit.ts.toFixed(6)} on CPU ${w.hit.cpu}, ${w.lines.length} lines`,
      ...w.lines,
      ...(after.length > 0 ? [`# after the hit: ${after.length} lines`, ...after] : []),
      '',
    ];
    const size = block.reduce((n, l) => n + l.length + 1, 0);
    if (bytes + size > maxBytes) {
      out.push(
        `# ${windows.length - written} more window(s) not written: recorder.txt is capped at ${maxBytes >> 20} MiB`,
      );
      break;
    }
    out.push(...block);
    bytes += size;
    written++;
  }
  return out.join('\n') + '\n';
}
