// How long a request body may take. A peer that declares a large body and sends a byte every
// few seconds (slow-body, "slow POST") would otherwise hold its connection and memory for as
// long as the server's overall request timeout. Two rules, checked as the body arrives: the
// whole body within `maxMs`, and after a short grace an average of at least `minBytesPerSec`.

export interface BodyDeadlinePolicy {
  /** Longest time for the whole body (ms). */
  maxMs: number;
  /** Time before the rate rule applies (ms): connection set-up, TLS proxies, slow starts. */
  graceMs: number;
  /** Lowest average rate after the grace (bytes/s). */
  minBytesPerSec: number;
}

/** Default: 30 s for the body, and at least 4 KiB/s on average after 3 s. */
export const DEFAULT_BODY_DEADLINE: BodyDeadlinePolicy = {
  maxMs: 30_000,
  graceMs: 3_000,
  minBytesPerSec: 4096,
};

export type BodyProgressVerdict =
  { kind: 'ok' } | { kind: 'too-slow' | 'too-long'; reason: string };

/** Judges a body in progress: `receivedBytes` after `elapsedMs` since the headers arrived. */
export function judgeBodyProgress(
  receivedBytes: number,
  elapsedMs: number,
  policy: BodyDeadlinePolicy = DEFAULT_BODY_DEADLINE,
): BodyProgressVerdict {
  if (elapsedMs > policy.maxMs) {
    return {
      kind: 'too-long',
      reason: `the body did not arrive within ${Math.round(policy.maxMs / 1000)} s (${receivedBytes} bytes came)`,
    };
  }
  if (elapsedMs > policy.graceMs) {
    const rate = receivedBytes / (elapsedMs / 1000);
    if (rate < policy.minBytesPerSec) {
      return {
        kind: 'too-slow',
        reason: `the body arrived at ${Math.floor(rate)} bytes/s, below the ${policy.minBytesPerSec} bytes/s this server needs (${receivedBytes} bytes in ${(elapsedMs / 1000).toFixed(1)} s)`,
      };
    }
  }
  return { kind: 'ok' };
}
