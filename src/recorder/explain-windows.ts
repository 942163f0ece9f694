// The flight recorder's kept windows (raw trace_pipe lines frozen around each of its XRUN hits,
// src/run/recorder-windows.ts) turned into per-XRUN breakdowns and their summary: the one place
// where the recorder's text meets the pure breakdown model.
import { breakdownLookbackSeconds, breakdownXrun } from './breakdown.js';
import { summarizeBreakdowns, type BreakdownSummary } from './breakdown-summary.js';
import type { StreamTiming, TraceEvent, XrunBreakdown } from './breakdown-types.js';
import { createTraceParser, memoTraceLineParser, type TraceLine } from './trace-line.js';

/** One frozen window as the recorder keeps it: its hit (trace time, CPU) and the raw lines. */
export interface RawTraceWindow {
  hit: { ts: number; cpu: number };
  lines: readonly string[];
  /** Lines after the hit (how a sleeping writer woke up), when the recorder kept them. */
  after?: readonly string[];
}

/** The breakdowns of a run, with the windows that could not be read as a hit. */
export interface RecorderExplanation {
  breakdowns: XrunBreakdown[];
  summary: BreakdownSummary;
  /** Windows whose hit line was not found among the parsed events. */
  unreadable: number;
}

/** Name of the recorder's xrun probe event as ftrace prints it (`xrunhunt_rec/xrun` → `xrun`). */
const HIT_EVENT = 'xrun';

// Parses one window; returns the hit event (with its stack), every event before it, and all
// events but the hit (those after it too: the breakdown reads them for a sleeper's wake-up).
function parseWindow(
  w: RawTraceWindow,
  classify: (line: string) => TraceLine,
): { hit: TraceEvent; before: TraceEvent[]; others: TraceEvent[] } | null {
  const events: TraceEvent[] = [];
  const parser = createTraceParser((e) => events.push(e), classify);
  for (const line of w.lines) parser.push(line);
  parser.end();
  const later: TraceEvent[] = [];
  const afterParser = createTraceParser((e) => later.push(e), classify);
  for (const line of w.after ?? []) afterParser.push(line);
  afterParser.end();
  let hit: TraceEvent | undefined;
  for (const e of events)
    if (e.name === HIT_EVENT && e.cpu === w.hit.cpu && Math.abs(e.ts - w.hit.ts) < 1e-6) hit = e;
  if (!hit) return null;
  const found = hit;
  const before = events.filter((e) => e !== found && e.ts <= found.ts);
  return { hit: found, before, others: before.concat(later.filter((e) => e.ts >= found.ts)) };
}

/** Explains every kept window of a run with the stream's timing (period, buffer, writer). */
export function explainRecorderWindows(
  windows: readonly RawTraceWindow[],
  timing: StreamTiming,
): RecorderExplanation {
  const look = breakdownLookbackSeconds(timing);
  const breakdowns: XrunBreakdown[] = [];
  let unreadable = 0;
  // The windows overlap: each line is parsed once for all of them.
  const classify = memoTraceLineParser();
  for (const w of windows) {
    const parsed = parseWindow(w, classify);
    if (!parsed) {
      unreadable++;
      continue;
    }
    const first = parsed.before[0]?.ts ?? parsed.hit.ts;
    breakdowns.push(
      breakdownXrun(parsed.others, parsed.hit, timing, {
        windowStart: Math.max(parsed.hit.ts - look, first),
      }),
    );
  }
  return { breakdowns, summary: summarizeBreakdowns(breakdowns), unreadable };
}
