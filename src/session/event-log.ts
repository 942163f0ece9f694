// The NDJSON event log: one session event per line, written with a synchronous append as
// each event happens (no buffering in our process), so a crash or kill -9 loses at most
// the event being written. Reading tolerates exactly that: a truncated last line.
import * as nodeFs from 'node:fs';
import type { SessionEvent } from './events.js';

/** The fs calls the writer needs (tests may count them). */
export type EventLogFs = Pick<typeof nodeFs, 'openSync' | 'writeSync' | 'closeSync'>;

/** Appends events to a file as NDJSON, one synchronous write per event. */
export class EventLogWriter {
  readonly path: string;
  private fd: number | null;
  private readonly fs: EventLogFs;
  /** The first write error (disk full, ...); later events are not written. */
  error: Error | null = null;

  constructor(path: string, fs: EventLogFs = nodeFs) {
    this.path = path;
    this.fs = fs;
    // 'a': O_APPEND, so a line is never interleaved with a concurrent writer's.
    this.fd = fs.openSync(path, 'a', 0o644);
  }

  /** Writes one event as one line; never throws (the session must go on and restore). */
  append(event: SessionEvent): void {
    if (this.fd === null || this.error) return;
    try {
      this.fs.writeSync(this.fd, JSON.stringify(event) + '\n');
    } catch (err) {
      this.error = err instanceof Error ? err : new Error(String(err));
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      this.fs.closeSync(this.fd);
    } catch {
      // nothing left to lose: every line was already written
    }
    this.fd = null;
  }
}

export interface ParsedEventLog {
  events: SessionEvent[];
  /** A last line cut short by a crash (not an error: the log's contract allows it). */
  truncatedTail: boolean;
  /** Lines that are not JSON in the middle of the file (real corruption). */
  badLines: number[];
}

/** Parses an NDJSON event log (pure); a partial last line is reported, not thrown. */
export function parseEventLog(text: string): ParsedEventLog {
  const lines = text.split('\n');
  const endsClean = text.endsWith('\n') || text === '';
  const events: SessionEvent[] = [];
  const badLines: number[] = [];
  let truncatedTail = false;
  lines.forEach((line, i) => {
    if (line === '') return;
    const isLast = i === lines.length - 1;
    try {
      const v = JSON.parse(line) as unknown;
      if (
        typeof v === 'object' &&
        v !== null &&
        typeof (v as { type?: unknown }).type === 'string'
      ) {
        events.push(v as SessionEvent);
      } else badLines.push(i + 1);
    } catch {
      if (isLast && !endsClean) truncatedTail = true;
      else badLines.push(i + 1);
    }
  });
  return { events, truncatedTail, badLines };
}
