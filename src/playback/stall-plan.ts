// `--inject-stall MS[xCOUNT]`: the writer sleeps MS on purpose, COUNT times, spaced out, to
// prove on this machine that an underrun is detected and timed (alsabat-style self-test).
import { UsageError } from '../errors.js';

export interface StallPlan {
  stallMs: number;
  count: number;
  /** First stall after this much playback (ms): the stream must be running and settled. */
  warmupMs: number;
  /** Spacing between stall starts (ms). */
  intervalMs: number;
}

// One second of warm-up lets the device start and the thread settle; one second between
// stalls keeps each xrun's recovery well apart from the next stall.
const DEFAULT_WARMUP_MS = 1000;
const DEFAULT_INTERVAL_MS = 1000;
const MAX_STALL_MS = 10_000;

/** Parses `20`, `20x5`, `20msx5` into a plan; bad text is a UsageError naming the option. */
export function parseStallPlan(text: string): StallPlan {
  const m = /^\s*(\d+(?:\.\d+)?)(?:ms)?(?:\s*[x*]\s*(\d+))?\s*$/i.exec(text);
  if (!m) {
    throw new UsageError(
      `invalid --inject-stall "${text}": expected MS or MSxCOUNT, e.g. 20 or 20x5 (stall 20 ms, 5 times)`,
    );
  }
  const stallMs = Number(m[1]);
  const count = m[2] === undefined ? 1 : Number(m[2]);
  if (stallMs <= 0 || stallMs > MAX_STALL_MS || count < 1 || count > 10_000) {
    throw new UsageError(
      `invalid --inject-stall "${text}": expected 0 < MS ≤ ${MAX_STALL_MS} and 1 ≤ COUNT ≤ 10000`,
    );
  }
  const intervalMs = Math.max(DEFAULT_INTERVAL_MS, stallMs * 4);
  return { stallMs, count, warmupMs: DEFAULT_WARMUP_MS, intervalMs };
}

/** When (ms after start) stall `index` is due. */
export function stallDueMs(plan: StallPlan, index: number): number {
  return plan.warmupMs + index * plan.intervalMs;
}

/** How long a run must be to fit every stall plus one interval to recover. */
export function stallPlanSpanMs(plan: StallPlan): number {
  return stallDueMs(plan, plan.count - 1) + plan.intervalMs;
}
