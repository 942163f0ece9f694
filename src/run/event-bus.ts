// The run's event bus: synchronous listeners (the event log, the dashboard, --json streaming)
// and async iteration that ends after the terminal event. Generic over the event union, so
// a session, a watch (with its own extra events) and the probes that come next all publish
// on one bus. Memory is bounded on long runs: the catch-up history keeps the first event of
// each "header" type for ever and the newest `historyCap` others, and counts what it dropped.
// Pure: no IO, no clock.

/** Catch-up history kept by default: ~2.7 h of a session's once-a-second stats and more. */
export const DEFAULT_HISTORY_CAP = 10_000;

/** What an event on a run's bus carries at least. */
export interface RunEventBase {
  type: string;
  timeMs: number;
}

export interface EventBusOptions<E extends RunEventBase> {
  /** The event after which nothing more is delivered (and iteration ends). */
  terminal: E['type'];
  /** Types announced once at the start (kept in the history whatever the cap). */
  headerTypes?: readonly E['type'][];
  historyCap?: number;
}

type Listener<E> = (event: E) => void;

/** Fan-out of a run's events; a throwing listener never stops the run (it still restores). */
export class EventBus<E extends RunEventBase> implements AsyncIterable<E> {
  private readonly listeners = new Set<Listener<E>>();
  private readonly terminal: E['type'];
  private readonly headerTypes: ReadonlySet<string>;
  private readonly cap: number;
  private readonly headers: Kept<E>[] = [];
  private ring: Kept<E>[] = [];
  private ringStart = 0;
  private seq = 0;
  private ended = false;
  /** Events no longer in the catch-up history (delivered live, dropped to bound memory). */
  droppedFromHistory = 0;

  constructor(options: EventBusOptions<E>) {
    this.terminal = options.terminal;
    this.headerTypes = new Set(options.headerTypes ?? []);
    this.cap = Math.max(1, options.historyCap ?? DEFAULT_HISTORY_CAP);
  }

  /** Delivers one event to every listener (nothing after the terminal event). */
  emit(event: E): void {
    if (this.ended) return;
    this.remember(event);
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        // A broken observer must not break the run (it still restores /proc).
      }
    }
    if (event.type === this.terminal) this.ended = true;
  }

  /** Subscribes; returns the unsubscribe function. */
  on(listener: Listener<E>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Subscribes to one event type only. */
  onType<T extends E['type']>(
    type: T,
    listener: (event: Extract<E, { type: T }>) => void,
  ): () => void {
    return this.on((e) => {
      if (e.type === type) listener(e as Extract<E, { type: T }>);
    });
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The events so far that late subscribers catch up with, in order (bounded: see above). */
  get history(): readonly E[] {
    const kept = this.ring.slice(this.ringStart).concat(this.ring.slice(0, this.ringStart));
    return mergeBySeq(this.headers, kept);
  }

  private remember(event: E): void {
    const entry = { seq: this.seq++, event };
    if (
      this.headerTypes.has(event.type) &&
      !this.headers.some((h) => h.event.type === event.type)
    ) {
      this.headers.push(entry);
      return;
    }
    if (this.ring.length < this.cap) {
      this.ring.push(entry);
      return;
    }
    this.ring[this.ringStart] = entry;
    this.ringStart = (this.ringStart + 1) % this.cap;
    this.droppedFromHistory++;
  }

  /** Iterates from the history on, ending after the terminal event. */
  [Symbol.asyncIterator](): AsyncIterator<E> {
    const queue: E[] = [...this.history];
    let wake: (() => void) | null = null;
    let done = this.ended;
    const off = this.on((e) => {
      queue.push(e);
      if (e.type === this.terminal) done = true;
      wake?.();
    });
    return {
      next: async (): Promise<IteratorResult<E>> => {
        for (;;) {
          const e = queue.shift();
          if (e !== undefined) return { value: e, done: false };
          if (done) {
            off();
            return { value: undefined, done: true };
          }
          await new Promise<void>((r) => (wake = r));
          wake = null;
        }
      },
      return: async (): Promise<IteratorResult<E>> => {
        off();
        done = true;
        return { value: undefined, done: true };
      },
    };
  }
}

interface Kept<E> {
  seq: number;
  event: E;
}

/** Headers and ring entries back in emission order. */
function mergeBySeq<E>(headers: readonly Kept<E>[], kept: readonly Kept<E>[]): E[] {
  const out: E[] = [];
  let h = 0;
  for (const k of kept) {
    while (h < headers.length && headers[h]!.seq < k.seq) out.push(headers[h++]!.event);
    out.push(k.event);
  }
  while (h < headers.length) out.push(headers[h++]!.event);
  return out;
}
