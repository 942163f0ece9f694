// `analyze --json`: one JSON document, written while the log is read. Events come first
// (one compact object per line, as each is found), then the ranking, the counts and the
// warnings, which are only known at the end. Same keys and order as ever, so every reader of
// the document works unchanged (new keys are only ever added: an event's `detection`, the
// summary's `detectorOnly`, an event's `breakdown` and the document's `breakdown` summary when
// any event carried one); nothing but the ranking state and the breakdowns is held in memory.
import { terminalSafeJson } from '../text/untrusted-text.js';
import type { Writable } from 'node:stream';
import type { AnalysisResult, StreamedAnalysis, XrunEvent } from './types.js';
import { summarizeBreakdowns } from '../recorder/breakdown-summary.js';
import type { XrunBreakdown } from '../recorder/breakdown-types.js';

/** An event as the `--json` document spells it (stable key order). */
export function eventJson(e: XrunEvent): unknown {
  return {
    kind: e.kind,
    pcm: e.pcm,
    line: e.line,
    ...(e.time !== undefined ? { time: e.time } : {}),
    ...(e.source !== undefined ? { source: e.source } : {}),
    header: e.header,
    offender: e.offender,
    ...(e.offenderIndex !== undefined ? { offenderIndex: e.offenderIndex } : {}),
    frames: e.frames,
    ...(e.detection !== undefined ? { detection: e.detection } : {}),
    ...(e.breakdown !== undefined ? { breakdown: e.breakdown } : {}),
  };
}

/** The whole `--json` document of a result held in memory (tests, library callers). */
export function analysisJson(r: AnalysisResult): unknown {
  return {
    events: r.events.map(eventJson),
    offenders: r.offenders,
    summary: r.summary,
    warnings: r.warnings,
  };
}

export interface JsonReportWriter {
  event(e: XrunEvent): void;
  /** Writes what is pending; resolves when `out` can take more (backpressure). */
  pace(): Promise<void>;
  /** Closes the events list and writes the ranking, counts and warnings. */
  end(r: StreamedAnalysis): Promise<void>;
}

// Pending text is handed to the stream in pieces of about this size.
const FLUSH_CHARS = 1 << 20;

/** Streams the `--json` document to `out` (see the file comment). */
export function createJsonReportWriter(out: Writable): JsonReportWriter {
  let pending = '{\n  "events": [';
  let count = 0;
  const breakdowns: XrunBreakdown[] = [];
  let blocked: Promise<void> | null = null;
  const flush = (): void => {
    // A reader that went away (`| head`): nothing more to say, and nothing to crash on.
    if (out.destroyed) pending = '';
    if (pending.length === 0) return;
    const ok = out.write(pending);
    pending = '';
    if (!ok && !blocked) {
      blocked = new Promise<void>((resolve) => {
        const done = (): void => {
          out.off('drain', done);
          out.off('close', done);
          out.off('error', done);
          blocked = null;
          resolve();
        };
        out.on('drain', done);
        out.on('close', done);
        out.on('error', done);
      });
    }
  };
  const indent = (json: string): string => json.replace(/\n/g, '\n  ');
  return {
    event(e: XrunEvent): void {
      pending += `${count === 0 ? '\n' : ',\n'}    ${terminalSafeJson(JSON.stringify(eventJson(e)))}`;
      count++;
      if (e.breakdown) breakdowns.push(e.breakdown);
      if (pending.length >= FLUSH_CHARS) flush();
    },
    async pace(): Promise<void> {
      flush();
      if (blocked) await blocked;
    },
    async end(r: StreamedAnalysis): Promise<void> {
      pending += count === 0 ? '],\n' : '\n  ],\n';
      pending += `  "offenders": ${indent(terminalSafeJson(JSON.stringify(r.offenders, null, 2)))},\n`;
      pending += `  "summary": ${indent(terminalSafeJson(JSON.stringify(r.summary, null, 2)))},\n`;
      if (breakdowns.length > 0) {
        const s = summarizeBreakdowns(breakdowns);
        pending += `  "breakdown": ${indent(terminalSafeJson(JSON.stringify(s, null, 2)))},\n`;
      }
      pending += `  "warnings": ${indent(terminalSafeJson(JSON.stringify(r.warnings, null, 2)))}\n}\n`;
      flush();
      if (blocked) await blocked;
    },
  };
}
