// Turns the live kernel-log stream into analyzer events WHILE the session runs, so the
// dashboard and the event log see kernel events as they happen. The analyzer is streaming
// but reports events only at finish(); whenever it is idle (no record open) finishing is
// lossless, so we finish that chunk and start a new analyzer. Pure: lines in, events out.
// It keeps no events: the ranking is a rolling aggregate (bounded memory on long runs).
import { createLogAnalyzer, createOffenderTally, loadRules } from '../analysis/index.js';
import type { LogAnalyzer, OffenderRank, RuleSet, XrunEvent } from '../analysis/index.js';

/** Lines per chunk before we look for an idle point: a dump is ~60 lines, so a few dumps. */
const CHUNK_LINES = 200;

export interface LiveAnalyzer {
  /** Feeds one raw line; returns the events completed by it (usually none). */
  push(line: string): XrunEvent[];
  /**
   * Closes the open records now and returns their events: call when the log has been quiet
   * for a while (a dump is printed in one go, so a pause means it is complete).
   */
  flush(): XrunEvent[];
  /** Closes everything and returns the remaining events. */
  finish(): XrunEvent[];
  /** Events completed so far (all of them, kept or not). */
  readonly eventCount: number;
  readonly warnings: readonly string[];
  rank(): OffenderRank[];
}

/** Creates a chunked live analyzer; event `line` numbers count from the session's first line. */
export function createLiveAnalyzer(rules: RuleSet = loadRules()): LiveAnalyzer {
  // Rolling: per-offender state only, so a run of days ranks every event without keeping them.
  const ranking = createOffenderTally();
  const warnings: string[] = [];
  let analyzer: LogAnalyzer = createLogAnalyzer({ rules });
  let base = 0; // lines consumed by finished chunks
  let inChunk = 0;

  const flush = (): XrunEvent[] => {
    const result = analyzer.finish();
    for (const w of result.warnings) if (!warnings.includes(w)) warnings.push(w);
    const events = result.events.map((e) => ({ ...e, line: e.line + base }));
    base += inChunk;
    inChunk = 0;
    analyzer = createLogAnalyzer({ rules });
    for (const e of events) ranking.add(e);
    return events;
  };

  return {
    push(line: string): XrunEvent[] {
      analyzer.push(line);
      inChunk++;
      return inChunk >= CHUNK_LINES && analyzer.idle() ? flush() : [];
    },
    flush(): XrunEvent[] {
      return inChunk > 0 ? flush() : [];
    },
    finish(): XrunEvent[] {
      return flush();
    },
    get eventCount() {
      return ranking.events;
    },
    warnings,
    rank: () => ranking.offenders(),
  };
}
