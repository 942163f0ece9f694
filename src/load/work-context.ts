// The loop helper every worker kind runs inside: counts bytes and ops, decides when to stop
// (deadline, byte limit, stop request), and lets the event loop breathe every few ms so the
// IPC channel delivers progress and stop messages while the kind does synchronous IO.
import type { LoadCounters } from './throughput.js';

// How long synchronous work may run between event-loop turns: short enough that a stop
// request is seen within ~50 ms, long enough that yielding costs nothing measurable.
const YIELD_EVERY_MS = 50;
// How often progress counters go to the parent (it samples them once a second).
const PROGRESS_EVERY_MS = 250;

export interface WorkContextDeps {
  now: () => number;
  /** Hands control to the event loop once (e.g. `setImmediate` as a promise). */
  breathe: () => Promise<void>;
  report: (counters: LoadCounters) => void;
}

export type StopCause = 'duration' | 'limit' | 'stopped';

/** The state one worker shares with its kind's loop. */
export class WorkContext {
  readonly counters: LoadCounters = { bytes: 0, ops: 0, activeMs: 0 };
  private activeSince: number | undefined;
  private lastYield: number;
  private lastReport = 0;
  private stopCause: StopCause | undefined;
  private readonly deadline: number;

  constructor(
    private readonly deps: WorkContextDeps,
    durationMs: number,
    private readonly limitBytes: number | undefined,
  ) {
    this.deadline = deps.now() + durationMs;
    this.lastYield = deps.now();
  }

  /** Marks the end of preparation: throughput is measured from here. */
  beginActive(): void {
    this.activeSince ??= this.deps.now();
  }

  /** Asks the loop to stop at its next tick (stop message, SIGTERM, parent gone). */
  requestStop(): void {
    this.stopCause ??= 'stopped';
  }

  /** Why the loop stopped, once it has. */
  get stopped(): StopCause | undefined {
    return this.stopCause;
  }

  /** Records work; true when the loop must stop. Call after every operation. */
  async tick(bytes = 0, ops = 0): Promise<boolean> {
    this.counters.bytes += bytes;
    this.counters.ops += ops;
    const now = this.deps.now();
    if (this.limitBytes !== undefined && this.counters.bytes >= this.limitBytes)
      this.stopCause ??= 'limit';
    if (now >= this.deadline) this.stopCause ??= 'duration';
    if (now - this.lastYield >= YIELD_EVERY_MS) {
      this.updateActive(now);
      if (now - this.lastReport >= PROGRESS_EVERY_MS) {
        this.lastReport = now;
        this.deps.report({ ...this.counters });
      }
      await this.deps.breathe();
      this.lastYield = this.deps.now();
    }
    return this.stopCause !== undefined;
  }

  /** Waits without working (external commands, idle), still honouring stop and deadline. */
  async sleepUntilStop(pollMs: number, sleep: (ms: number) => Promise<void>): Promise<void> {
    while (!(await this.tick()))
      await sleep(Math.min(pollMs, Math.max(1, this.deadline - this.deps.now())));
  }

  /** Final counters, active time measured up to now. */
  finish(): LoadCounters {
    this.updateActive(this.deps.now());
    return { ...this.counters };
  }

  private updateActive(now: number): void {
    if (this.activeSince !== undefined) this.counters.activeMs = now - this.activeSince;
  }
}
