// Bounded memory at any event count, on top of the streaming LogAnalyzer (which keeps every
// event it closes until finish()): the input is cut into segments of a bounded number of
// lines, each read by its own LogAnalyzer whose events are handed on (and forgotten) when
// the segment ends. Records are independent per printk caller (they only ever look at lines
// of their own caller key), so a record opened at or after a cut is read by the new analyzer
// exactly as one analyzer would read it; a record still open at the cut is finished by the
// old analyzer, which keeps reading for at most `overlapLines` more lines (or until nothing is
// open). Where no record is open at the cut (the common case) the hand-over is free. The
// line counter runs on across inputs, so a record may go on from one input into the next
// (a rotated log given in pieces); events are mapped back to their input and line here.
import { createLogAnalyzer, type LogAnalyzer } from './analyzer.js';
import { loadRules, type RuleSet } from './rules.js';
import type { XrunEvent } from './types.js';

export interface SegmentedAnalyzerOptions {
  rules?: RuleSet;
  /** Receives every event once, in input order of segments (close order within a segment). */
  onEvent: (ev: XrunEvent) => void;
  /** Lines read by one analyzer before a new one takes over: bounds the events held at once. */
  segmentLines?: number;
  /** Lines a retired analyzer keeps reading so that records open at the cut finish whole. */
  overlapLines?: number;
}

export interface SegmentedAnalyzer {
  /** Feeds one physical line (without its line end). */
  push(line: string): void;
  /** True when no record is open anywhere: the caller may skip lines it proved irrelevant. */
  idle(): boolean;
  /** Advances over lines that cannot matter (only while idle()). */
  skipLines(count: number): void;
  /**
   * Starts the next input. `continueOpen`: records open at the end of the previous input may
   * go on in this one (consecutive pieces of one log); otherwise they are closed first.
   */
  startSource(source: string | undefined, continueOpen: boolean): void;
  /** Lines of the current input so far. */
  readonly lineNumber: number;
  /** Closes everything and hands on the last events; returns all lines and the analyzers' warnings. */
  finish(): { lines: number; warnings: string[] };
}

// 32 768 lines: at most ~33 000 events held (a log of header-only lines), a few MB; the
// overlap (records still open at a cut) then costs ~3 % extra parsing on logs of back-to-back dumps.
const DEFAULT_SEGMENT_LINES = 32768;
// 1 024 lines: several times the longest real dump (~150 lines) plus the analyzer's 400-line
// staleness limit; a record still open this long after a cut is closed there.
const DEFAULT_OVERLAP_LINES = 1024;

// A /dev/kmsg dictionary line (` SUBSYSTEM=sound`): its meaning depends on the line before.
const KMSG_DICTIONARY_RE = /^ [A-Z0-9_]+=/;

interface Segment {
  a: LogAnalyzer;
  /** Global line count when this analyzer started: its events have line > from. */
  from: number;
  /** Set when retired: its events have line ≤ to. */
  to: number;
  /** Retired: stop feeding it at this global line at the latest. */
  until: number;
}

interface SourceStart {
  /** Global lines before this input. */
  start: number;
  source: string | undefined;
}

/** Creates a segmented analyzer (see the file comment). */
export function createSegmentedAnalyzer(options: SegmentedAnalyzerOptions): SegmentedAnalyzer {
  const rules = options.rules ?? loadRules();
  const segmentLines = Math.max(1, options.segmentLines ?? DEFAULT_SEGMENT_LINES);
  const overlapLines = Math.max(1, options.overlapLines ?? DEFAULT_OVERLAP_LINES);
  const warnings: string[] = [];
  const sources: SourceStart[] = [{ start: 0, source: undefined }];
  let global = 0;

  const fresh = (): Segment => {
    // Every segment is short, so every event keeps its frames.
    const a = createLogAnalyzer({ rules, maxEventsWithFrames: Number.POSITIVE_INFINITY });
    // Same absolute line numbers as one analyzer reading everything (its staleness check
    // runs on them).
    if (global > 0) a.skipLines(global);
    return { a, from: global, to: Number.POSITIVE_INFINITY, until: Number.POSITIVE_INFINITY };
  };
  let cur = fresh();
  let retiring: Segment | null = null;

  const sourceOf = (line: number): SourceStart => {
    for (let i = sources.length - 1; i > 0; i--) if (sources[i]!.start < line) return sources[i]!;
    return sources[0]!;
  };

  const end = (seg: Segment): void => {
    const r = seg.a.finish();
    for (const w of r.warnings) {
      if (warnings.length < 100 && !warnings.includes(w)) warnings.push(w);
    }
    for (const ev of r.events) {
      if (ev.line <= seg.from || ev.line > seg.to) continue;
      const s = sourceOf(ev.line);
      ev.line -= s.start;
      if (s.source !== undefined) ev.source = s.source;
      else delete ev.source;
      options.onEvent(ev);
    }
  };

  const endRetiring = (): void => {
    if (retiring) {
      end(retiring);
      retiring = null;
    }
  };

  /** Hands over to a new analyzer before the next line, if this segment is long enough. */
  const maybeCut = (nextLineIsDictionary: boolean): void => {
    if (global - cur.from < segmentLines || retiring) return;
    if (cur.a.idle()) {
      end(cur);
      cur = fresh();
      return;
    }
    // A kmsg dictionary line (` KEY=…`) is read differently after a record line; the new
    // analyzer does not know the previous line, so never cut right before one.
    if (nextLineIsDictionary) return;
    cur.to = global;
    cur.until = global + overlapLines;
    retiring = cur;
    cur = fresh();
  };

  return {
    push(line: string): void {
      maybeCut(line.charCodeAt(0) === 32 && KMSG_DICTIONARY_RE.test(line));
      global++;
      if (retiring) {
        retiring.a.push(line);
        if (retiring.a.idle() || global >= retiring.until) endRetiring();
      }
      cur.a.push(line);
    },
    idle: () => retiring === null && cur.a.idle(),
    skipLines(count: number): void {
      if (count <= 0) return;
      maybeCut(false);
      global += count;
      cur.a.skipLines(count);
    },
    startSource(source: string | undefined, continueOpen: boolean): void {
      if (!continueOpen) {
        endRetiring();
        end(cur);
        cur = fresh();
      }
      sources.push({ start: global, source });
    },
    get lineNumber() {
      return global - sources[sources.length - 1]!.start;
    },
    finish() {
      endRetiring();
      end(cur);
      cur = fresh();
      return { lines: global, warnings: [...warnings] };
    },
  };
}
