// Ground truth 4's bookkeeping (test/lab/breakdown-lab.test.ts): which XRUNs of a capture the
// injected stalls made, found without the breakdown — from `xrunhunt play --json` (the xruns it
// flagged as injected, on CLOCK_MONOTONIC, the recorder's `mono` trace clock) and the writer's
// own sched_switch/sched_waking around each — and the breakdown of each, cut as the recorder
// cuts its windows (the lookback before the hit, and after it as far as the window reaches).
import { breakdownLookbackSeconds, breakdownXrun } from '../../src/recorder/breakdown.js';
import type {
  StreamTiming,
  TraceEvent,
  XrunBreakdown,
} from '../../src/recorder/breakdown-types.js';

/** What `xrunhunt play --json` says that the test needs. */
export interface PlayJson {
  policy: { tid: number };
  stallsInjected: number;
  xruns: { monotonicNs: string; injected: boolean }[];
}

/** One injected stall as the trace shows it, with the breakdown of the XRUN it made. */
export interface StallXrun {
  /** The XRUN the player saw after its stall: the last hit before it noticed (the stream stays
   * stopped from an XRUN until the player prepares it again). */
  hitTs: number;
  /**
   * The writer's own 19–21 ms timer armed before that hit (hrtimer_start of hrtimer_wakeup by
   * its thread): when, and what it asked for; absent when the hit came before any such arming.
   */
  armed?: { ts: number; askedMs: number };
  /** The writer's first wake-up after that arming (trace time, s). */
  wokeAt: number;
  breakdown: XrunBreakdown;
}

/** The outcome: stalls whose XRUN the trace has, those it lacks, and every breakdown. */
export interface StallTruth {
  stalls: StallXrun[];
  /** Injected xruns without a hit in the 100 ms before the player noticed (lost hits). */
  unmatched: number;
  all: XrunBreakdown[];
  /** Breakdowns of hits in no stall (neither near an injected xrun nor in a 20 ms sleep). */
  others: XrunBreakdown[];
}

/** Events of [from, to] of a sorted list. */
function slice(events: readonly TraceEvent[], from: number, to: number): TraceEvent[] {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.ts < from) lo = mid + 1;
    else hi = mid;
  }
  const out: TraceEvent[] = [];
  for (let i = lo; i < events.length && events[i]!.ts <= to; i++) out.push(events[i]!);
  return out;
}

/** Every XRUN's breakdown from [hit − lookback, hit + after], and the injected stalls' XRUNs. */
export function stallTruth(
  events: readonly TraceEvent[],
  play: PlayJson,
  timing: StreamTiming,
  afterSeconds: number,
): StallTruth {
  const writer = play.policy.tid;
  const look = breakdownLookbackSeconds(timing);
  const hits = events.filter((e) => e.name === 'xrun');
  const all = hits.map((h) =>
    breakdownXrun(
      slice(events, h.ts - look, h.ts + afterSeconds).filter((e) => e !== h),
      h,
      { ...timing, writerPids: [writer] },
      { windowStart: h.ts - look },
    ),
  );
  const wakes = events.filter(
    (e) => e.name === 'sched_waking' && Number(e.fields['pid']) === writer,
  );
  // The writer's own ~20 ms timers: armed at ts, asking until softexpires (mono ns).
  const arms = events
    .filter(
      (e) =>
        e.name === 'hrtimer_start' && e.pid === writer && e.fields['function'] === 'hrtimer_wakeup',
    )
    .map((e) => ({ ts: e.ts, askedMs: (Number(e.fields['softexpires']) / 1e9 - e.ts) * 1000 }))
    .filter((a) => a.askedMs >= 19 && a.askedMs <= 21);
  const stalls: StallXrun[] = [];
  let unmatched = 0;
  const injected = play.xruns.filter((x) => x.injected).map((x) => Number(x.monotonicNs) / 1e9);
  for (const m of injected) {
    const i = hits.findLastIndex((h) => h.ts <= m + 0.0005 && h.ts >= m - 0.1);
    if (i < 0) {
      unmatched++;
      continue;
    }
    const hit = hits[i]!.ts;
    const arm = arms.filter((a) => a.ts <= hit && a.ts >= hit - 0.05).at(-1);
    const woke = arm && wakes.find((w) => w.ts > arm.ts);
    const whole = arm && woke && hit <= woke.ts + 0.002;
    stalls.push({
      hitTs: hit,
      ...(whole ? { armed: arm } : {}),
      wokeAt: woke?.ts ?? NaN,
      breakdown: all[i]!,
    });
  }
  const inStall = (ts: number): boolean =>
    injected.some((m) => ts >= m - 0.1 && ts <= m + 0.001) ||
    arms.some((a) => ts >= a.ts && ts <= a.ts + 0.05);
  return { stalls, unmatched, all, others: all.filter((b) => !inStall(b.ts)) };
}
