// The recorder's memory: the last few seconds of events, bounded by age and by count, so the
// breakdown of each XRUN can be cut from it. A ring buffer: push is O(1), nothing is copied
// until a window is asked for. trace_pipe hands out each CPU's events in order but interleaves
// CPUs loosely, so a window is sorted by time when it is read.
import type { TraceEvent } from './breakdown-types.js';

/** The two bounds of the window: age and count. */
export interface EventWindowOptions {
  /** Events older than this many seconds (behind the newest one) are dropped. */
  keepSeconds: number;
  /** Hard cap on events held, whatever their age. */
  maxEvents: number;
}

/** A bounded, time-ordered memory of trace events. */
export class EventWindow {
  private readonly ring: (TraceEvent | undefined)[];
  private head = 0; // index of the oldest event
  private size = 0;
  private newest = -Infinity;
  private evicted = 0;

  constructor(private readonly options: EventWindowOptions) {
    if (!(options.keepSeconds > 0) || !Number.isInteger(options.maxEvents) || options.maxEvents < 1)
      throw new RangeError(
        `EventWindow needs keepSeconds > 0 and an integer maxEvents ≥ 1, got ${options.keepSeconds} and ${options.maxEvents}`,
      );
    this.ring = new Array<TraceEvent | undefined>(options.maxEvents);
  }

  /** Number of events held now. */
  get length(): number {
    return this.size;
  }

  /** Events dropped because the count cap was hit (not by age): the window may have holes. */
  get droppedByCap(): number {
    return this.evicted;
  }

  /** Adds one event and forgets what fell out of the kept time span. */
  push(e: TraceEvent): void {
    const cap = this.options.maxEvents;
    if (this.size === cap) {
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) % cap;
      this.size--;
      this.evicted++;
    }
    this.ring[(this.head + this.size) % cap] = e;
    this.size++;
    if (e.ts > this.newest) this.newest = e.ts;
    const oldest = this.newest - this.options.keepSeconds;
    // Amortised O(1): each event is dropped at most once.
    while (this.size > 0 && this.ring[this.head]!.ts < oldest) {
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) % cap;
      this.size--;
    }
  }

  /** The events with t0 ≤ ts ≤ t1, sorted by ts (stable: same-time events keep push order). */
  between(t0: number, t1: number): TraceEvent[] {
    const out: TraceEvent[] = [];
    const cap = this.options.maxEvents;
    for (let i = 0; i < this.size; i++) {
      const e = this.ring[(this.head + i) % cap]!;
      if (e.ts >= t0 && e.ts <= t1) out.push(e);
    }
    return out.sort((a, b) => a.ts - b.ts);
  }

  /** The time of the oldest event held (Infinity when empty): a window before it is not covered. */
  oldestTs(): number {
    let min = Infinity;
    const cap = this.options.maxEvents;
    // trace_pipe's CPU interleaving can put a slightly older event behind the head.
    for (let i = 0; i < Math.min(this.size, 64); i++)
      min = Math.min(min, this.ring[(this.head + i) % cap]!.ts);
    return min;
  }
}
