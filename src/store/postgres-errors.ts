// Pure: what a node-postgres error means for a retry. PostgreSQL reports a SQLSTATE in
// `code`; a lost socket reports a Node errno (ECONNREFUSED, ECONNRESET) or only a message.
import { errorMessage } from '../errors.js';

const codeOf = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string'
    ? (err as { code: string }).code
    : undefined;

/** Deadlock or serialization failure: the transaction can simply run again. */
export function isRetryable(err: unknown): boolean {
  const code = codeOf(err);
  return code === '40P01' || code === '40001';
}

/** The server is (for now) unreachable: restarting, shutting down, or the socket dropped. */
export function isTransientConnectionError(err: unknown): boolean {
  const code = codeOf(err);
  if (code !== undefined) {
    if (/^(08|57P0[1-3])/.test(code)) return true; // connection exception, admin/crash shutdown, cannot connect now
    if (
      [
        'ECONNREFUSED',
        'ECONNRESET',
        'EPIPE',
        'ETIMEDOUT',
        'EHOSTUNREACH',
        'ENOTFOUND',
        'EAI_AGAIN',
      ].includes(code)
    )
      return code !== 'ENOTFOUND';
  }
  const msg = err instanceof Error ? err.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(
    msg,
  );
}

/** One line about a database error, for a user (never includes the URL or its password). */
export function describePgError(err: unknown): string {
  const msg = errorMessage(err);
  const code = codeOf(err);
  return code && !msg.includes(code) ? `${msg} (${code})` : msg;
}
