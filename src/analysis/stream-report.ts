// `analyze`'s reports, written while the logs are read: the JSON document streams its events
// straight to the output; the text and markdown reports keep the first events (or, with
// --verbose, spool all of them to a temporary file) and print them after the ranking, which
// is known only at the end. Memory holds the ranking state, never the events.
import type { Writable } from 'node:stream';
import { XrunhuntError, errnoCode } from '../errors.js';
import {
  streamAnalyzeFiles,
  type AnalyzeFilesIo,
  type AnalyzeFilesOptions,
} from './analyze-files.js';
import { createJsonReportWriter } from './json-report.js';
import {
  DEFAULT_EVENTS_SHOWN,
  renderReportEvent,
  renderReportHead,
  renderReportTail,
  renderBreakdownSection,
  type HumanFormat,
  type ReportOptions,
} from './report.js';
import { createTextSpool } from './text-spool.js';
import type { StreamedAnalysis, XrunEvent } from './types.js';
import type { XrunBreakdown } from '../recorder/breakdown-types.js';

export type AnalyzeReportFormat = HumanFormat | 'json';

export interface AnalyzeReportIo extends AnalyzeFilesIo {
  stdout: Writable;
}

export interface AnalyzeReportOptions extends AnalyzeFilesOptions, ReportOptions {
  format: AnalyzeReportFormat;
  /** Another consumer of every event (the HTML report's collector). */
  onEvent?: (ev: XrunEvent) => void;
  /** Where --verbose spools the event list (default: the system temp folder). */
  spoolDir?: string;
}

/** Waits until `out` has room again when its buffer is full (backpressure for human reports). */
async function drained(out: Writable): Promise<void> {
  if (!out.writableNeedDrain) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/** Analyzes the inputs and writes the report in `format` to io.stdout; returns the ranking. */
export async function writeAnalyzeReport(
  inputs: string[] | '-',
  io: AnalyzeReportIo,
  options: AnalyzeReportOptions,
): Promise<StreamedAnalysis> {
  const out = io.stdout;
  // A reader that goes away (`analyze big.log | head`) is normal: stop reading the logs,
  // write nothing more, no EPIPE crash. Any other output error is reported at the end.
  const stop = new AbortController();
  const outer = io.signal;
  if (outer) {
    if (outer.aborted) stop.abort();
    else outer.addEventListener('abort', () => stop.abort(), { once: true });
  }
  let outputError: unknown;
  out.on('error', (err: unknown) => {
    if (errnoCode(err) !== 'EPIPE') outputError ??= err;
    stop.abort();
  });
  out.once('close', () => stop.abort());
  const r = await writeReport(inputs, { ...io, signal: stop.signal }, options);
  if (outputError !== undefined) {
    throw new XrunhuntError(
      'resource',
      `cannot write the report to standard output: ${errnoCode(outputError) ?? String(outputError)}`,
      { cause: outputError },
    );
  }
  return r;
}

async function writeReport(
  inputs: string[] | '-',
  io: AnalyzeReportIo,
  options: AnalyzeReportOptions,
): Promise<StreamedAnalysis> {
  const also = options.onEvent;
  if (options.format === 'json') {
    const json = createJsonReportWriter(io.stdout);
    const r = await streamAnalyzeFiles(inputs, io, {
      ...options,
      onEvent: (ev) => {
        json.event(ev);
        also?.(ev);
      },
      pace: () => json.pace(),
    });
    await json.end(r);
    return r;
  }
  const format = options.format;
  const listAll = options.verbose === true;
  const spool = listAll ? createTextSpool(options.spoolDir) : null;
  try {
    let listed = 0;
    const first: string[] = [];
    const breakdowns: XrunBreakdown[] = [];
    const r = await streamAnalyzeFiles(inputs, io, {
      ...options,
      onEvent: (ev) => {
        also?.(ev);
        if (ev.breakdown) breakdowns.push(ev.breakdown);
        if (spool) {
          spool.append(renderReportEvent(ev, format, true));
          listed++;
        } else if (listed < DEFAULT_EVENTS_SHOWN) {
          first.push(renderReportEvent(ev, format));
          listed++;
        }
      },
    });
    const write = (text: string): void => {
      if (!io.stdout.destroyed) io.stdout.write(text);
    };
    write(renderReportHead(r, format, options));
    if (spool) await spool.copyTo(io.stdout);
    else write(first.join(''));
    write(renderReportTail(listed, r.summary.events, format));
    write(renderBreakdownSection(breakdowns, format));
    await drained(io.stdout);
    return r;
  } finally {
    spool?.dispose();
  }
}
