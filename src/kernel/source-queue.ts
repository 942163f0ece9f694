// A small push→pull queue: capture sources push lines as they read them, the session
// pulls them with `for await`. Unbounded on purpose: a burst of stack dumps must never be
// dropped by us (the kernel's own ring buffer is the only place lines may be lost).
import type { CapturedLine } from './source-contract.js';

/** Buffers pushed lines for one async consumer; `end()` finishes iteration after the buffer. */
export class LineQueue implements AsyncIterable<CapturedLine> {
  private buffer: CapturedLine[] = [];
  // Index of the next line to hand out: Array#shift is O(n), and a burst of tens of
  // thousands of dump lines made the consumer quadratic.
  private head = 0;
  private wake: (() => void) | null = null;
  private ended = false;

  /** Adds one line (ignored after end()). */
  push(line: CapturedLine): void {
    if (this.ended) return;
    this.buffer.push(line);
    this.wake?.();
  }

  /** Ends iteration once the buffered lines are consumed. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  [Symbol.asyncIterator](): AsyncIterator<CapturedLine> {
    return {
      next: async (): Promise<IteratorResult<CapturedLine>> => {
        for (;;) {
          if (this.head < this.buffer.length) {
            const line = this.buffer[this.head++]!;
            if (this.head >= 4096 && this.head * 2 >= this.buffer.length) {
              this.buffer = this.buffer.slice(this.head);
              this.head = 0;
            }
            return { value: line, done: false };
          }
          if (this.ended) return { value: undefined, done: true };
          await new Promise<void>((r) => (this.wake = r));
          this.wake = null;
        }
      },
    };
  }
}
