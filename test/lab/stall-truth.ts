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
  /** The writer's switch-out before the stall and its wake-up after it (trace time, s). */
  sleptFrom: number;
  wokeAt: number;
  /** The XRUN hit in that sleep (or up to 2 ms after the wake-up: detected in its own call). */
  hitTs: number;
  breakdown: XrunBreakdown;
}

/** The outcome: stalls whose XRUN the trace has, those it lacks, and every breakdown. */
export interface StallTruth {
  stalls: StallXrun[];
  /** Injected xruns without a hit in the writer's sleep (the XRUN came before the stall, or lost). */
  unmatched: number;
  all: XrunBreakdown[];
  /** Breakdowns of hits in no stall's sleep. */
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
  const outs = events.filter(
    (e) => e.name === 'sched_switch' && Number(e.fields['prev_pid']) === writer,
  );
  const stalls: StallXrun[] = [];
  let unmatched = 0;
  for (const x of play.xruns.filter((x) => x.injected)) {
    const m = Number(x.monotonicNs) / 1e9;
    // The stall ended with the writer's last wake-up before it saw the xrun, and began with its
    // switch-out before that wake-up.
    const woke = wakes.filter((w) => w.ts <= m).at(-1);
    const out = woke && outs.filter((o) => o.ts < woke.ts).at(-1);
    const i = out ? hits.findIndex((h) => h.ts >= out.ts && h.ts <= woke!.ts + 0.002) : -1;
    if (!woke || !out || i < 0) {
      unmatched++;
      continue;
    }
    stalls.push({ sleptFrom: out.ts, wokeAt: woke.ts, hitTs: hits[i]!.ts, breakdown: all[i]! });
  }
  const mine = new Set(stalls.map((s) => s.breakdown));
  return { stalls, unmatched, all, others: all.filter((b) => !mine.has(b)) };
}
