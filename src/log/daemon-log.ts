// Structured logs of the long-running commands (serve, aggregate --watch, watch): pino, one
// JSON object per line with an ISO timestamp ("time") and a level name ("level") on every
// record, to --log-file or to stderr. pino because it costs the event loop least (measured
// in bench/logging.ts against winston: see docs/aggregate.md "Logs"). The file is opened
// here, synchronously, so a bad path is a clear error before the daemon starts. Records are
// appended synchronously: memory stays bounded whatever the rate (an asynchronous buffer
// grew ~23 MB over 100,000 records in src/log/bounded-memory.test.ts) and a record is in
// the page cache when the call returns, kill -9 included. Cost: bench/logging.ts.
import { openSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { XrunhuntError, errnoCode } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The --log-level / --log-file options every daemon command takes (same text everywhere). */
export const LOG_OPTIONS = {
  'log-level': {
    type: 'string',
    valueName: 'LEVEL',
    default: 'info',
    choices: LOG_LEVELS,
    description: 'least severe log records written: trace, debug, info, warn, error or silent',
  },
  'log-file': {
    type: 'string',
    valueName: 'FILE',
    description: 'append the log (JSON lines) to FILE; - for stderr',
  },
} as const;

/** The --log-file value as a path: null for stderr (not given, or "-"). */
export function logFilePath(arg: string | undefined, cwd: string): string | null {
  return arg === undefined || arg === '-' ? null : resolve(cwd, arg);
}

export interface DaemonLogOptions {
  /** The command, on every record as "cmd". */
  command: string;
  level: LogLevel;
  /** Absolute path, or null for `stderr`. */
  file: string | null;
  stderr: Writable;
}

export interface DaemonLog {
  logger: Logger;
  /** Where records go, for the start message ("stderr" or the file). */
  target: string;
  /** Resolves when buffered records reached the file (at once for stderr). */
  flush(): Promise<void>;
  /** Flushes and closes the file (no-op for stderr); safe to call twice. */
  close(): Promise<void>;
}

/** Opens the log of one daemon run; exists so every daemon logs the same shape. */
export function openDaemonLog(o: DaemonLogOptions): DaemonLog {
  const options: pino.LoggerOptions = {
    level: o.level,
    base: { cmd: o.command },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  if (o.file === null) {
    return {
      logger: pino(options, o.stderr),
      target: 'stderr',
      flush: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }
  let fd: number;
  try {
    fd = openSync(o.file, 'a', 0o640);
  } catch (err) {
    throw new XrunhuntError(
      errnoCode(err) === 'ENOENT' ? 'not-found' : 'input',
      `cannot open the log file ${quoteUntrusted(o.file)}: ${(err as Error).message}`,
      { hint: 'give --log-file a path in a folder that exists and you can write to' },
    );
  }
  const dest = pino.destination({ fd, sync: true });
  let closed: Promise<void> | null = null;
  return {
    logger: pino(options, dest),
    target: o.file,
    flush: () => new Promise<void>((done) => dest.flush(() => done())),
    close() {
      closed ??= new Promise<void>((done) => {
        dest.end();
        done();
      });
      return closed;
    },
  };
}
