// One error family for everything xrunhunt reports to a user. The CLI prints `message`
// (what was expected, what was found, what to do) without a stack trace for these;
// anything that is not an XrunhuntError is a bug and is printed in full.

/** Machine-readable error codes; callers branch on these, never on message text. */
export type ErrorCode =
  | 'usage'
  | 'input'
  | 'not-found'
  | 'permission'
  | 'unsupported'
  | 'device'
  | 'alsa'
  | 'resource'
  | 'format'
  | 'lab'
  | 'interrupted'
  | 'internal';

export interface XrunhuntErrorOptions {
  /** What the user can do about it, printed on its own line after the message. */
  hint?: string;
  cause?: unknown;
}

/** Base class for errors that are the user's or the machine's, not xrunhunt's bugs. */
export class XrunhuntError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: XrunhuntErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'XrunhuntError';
    this.code = code;
    this.hint = options.hint;
  }
}

/** A bad command line: printed with a pointer to `--help`, exit code 1. */
export class UsageError extends XrunhuntError {
  constructor(message: string, options: XrunhuntErrorOptions = {}) {
    super('usage', message, options);
    this.name = 'UsageError';
  }
}

/** Marks a clean stop requested by the user (Ctrl-C, `q`), so shutdown is not a failure. */
export class InterruptedError extends XrunhuntError {
  readonly signal: string;
  constructor(signal: string) {
    super('interrupted', `stopped by ${signal}`);
    this.name = 'InterruptedError';
    this.signal = signal;
  }
}

/** Recognises user-facing errors, including ones built in other realms (worker threads). */
export function isXrunhuntError(err: unknown): err is XrunhuntError {
  return err instanceof XrunhuntError;
}

/** The message of anything thrown (an Error's message, else its text): for warnings and logs. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Node's system errors carry `code` ('ENOENT', 'EACCES', ...); this reads it safely. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = (err as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}
