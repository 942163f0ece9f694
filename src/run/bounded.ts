// Bounded collections for long runs (a watch may run for days): what is kept in full is
// capped, what is dropped is counted, so reports can say "N more were counted, not kept".

/** Detailed kernel events kept per run (an XRUN dump with its frames is ~2 KB: ~20 MB). */
export const MAX_KEPT_KERNEL_EVENTS = 10_000;
/** Userspace xruns kept per session (~60 bytes each). */
export const MAX_KEPT_XRUNS = 100_000;
/** Per-second headroom minima kept per phase: a day of one phase (~0.7 MB). */
export const MAX_HEADROOM_SAMPLES_PER_PHASE = 86_400;
/** kernel.log keeps the first and the last this many bytes of the captured log. */
export const KERNEL_LOG_HEAD_BYTES = 8 << 20;
export const KERNEL_LOG_TAIL_BYTES = 8 << 20;

/** Appends `value` while `list` is shorter than `cap`; returns whether it was kept. */
export function pushCapped<T>(list: T[], value: T, cap: number): boolean {
  if (list.length >= cap) return false;
  list.push(value);
  return true;
}

/** The first `cap` items in full, a count of the rest (indices into it stay stable). */
export class KeptList<T> {
  readonly items: T[] = [];
  /** Items pushed after the cap was reached. */
  dropped = 0;
  constructor(readonly cap: number) {}

  /** Keeps `item` if there is room; returns its index, or null when it was only counted. */
  push(item: T): number | null {
    if (this.items.length >= this.cap) {
      this.dropped++;
      return null;
    }
    this.items.push(item);
    return this.items.length - 1;
  }

  /** Everything pushed, kept or not. */
  get total(): number {
    return this.items.length + this.dropped;
  }
}

/** Raw log lines within a byte budget: the first `headBytes` and the newest `tailBytes`. */
export class HeadTailLines {
  private readonly head: string[] = [];
  private headBytes = 0;
  private tail: string[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  private headFull = false;
  /** Lines dropped between the head and the tail. */
  droppedLines = 0;

  constructor(
    private readonly headCap = KERNEL_LOG_HEAD_BYTES,
    private readonly tailCap = KERNEL_LOG_TAIL_BYTES,
  ) {}

  push(line: string): void {
    const bytes = line.length + 1;
    if (!this.headFull && this.headBytes + bytes <= this.headCap) {
      this.head.push(line);
      this.headBytes += bytes;
      return;
    }
    this.headFull = true;
    this.tail.push(line);
    this.tailBytes += bytes;
    while (this.tailBytes > this.tailCap && this.tailStart < this.tail.length) {
      this.tailBytes -= this.tail[this.tailStart]!.length + 1;
      this.tailStart++;
      this.droppedLines++;
    }
    // Compact now and then: the dropped prefix would otherwise stay referenced.
    if (this.tailStart > 4096 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  /** The kept text, one line each, with a marker line where lines were dropped. */
  text(): string {
    const tail = this.tail.slice(this.tailStart);
    const parts = [...this.head];
    if (this.droppedLines > 0)
      parts.push(
        `xrunhunt: ${this.droppedLines} kernel log lines dropped here to bound memory (kept: the first ${this.headCap >> 20} MiB and the last ${this.tailCap >> 20} MiB)`,
      );
    parts.push(...tail);
    return parts.length ? parts.join('\n') + '\n' : '';
  }
}
