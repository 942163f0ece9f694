// Reads one request body under every bound the receiver needs at once: a size cap, the body
// deadline (body-deadline.ts), and the global budget of body bytes in memory. It always
// settles — complete, too large, too slow, over budget, or aborted by the client — so no
// upload can hang and leak its place.
import type { IncomingMessage } from 'node:http';
import type { ByteBudget } from './byte-budget.js';
import { judgeBodyProgress, type BodyDeadlinePolicy } from './body-deadline.js';

export type BodyOutcome =
  | {
      kind: 'complete';
      body: Buffer;
      /** Gives the body's bytes back to the budget. */ release(): void;
    }
  | { kind: 'too-large'; receivedBytes: number }
  | { kind: 'too-slow'; receivedBytes: number; reason: string }
  | { kind: 'over-budget'; receivedBytes: number }
  | { kind: 'aborted'; receivedBytes: number };

export interface BodyReadOptions {
  maxBytes: number;
  deadline: BodyDeadlinePolicy;
  budget: ByteBudget;
  now: () => number;
  /** How often the deadline is checked (ms). */
  checkEveryMs?: number;
  /**
   * Called once reading starts with this read's progress and a way to cut it short
   * (slow-upload-registry.ts); returns the function to call when the read is over.
   */
  register?: (handle: {
    startedMs: number;
    receivedBytes(): number;
    cut(reason: string): void;
  }) => () => void;
}

/** Reads `req`'s body within the limits; resolves once, never rejects. */
export function readBodyBounded(
  req: IncomingMessage,
  options: BodyReadOptions,
): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const started = options.now();
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (outcome: BodyOutcome): void => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      unregister();
      req.off('data', onData);
      if (outcome.kind !== 'complete') {
        chunks.length = 0;
        options.budget.give(size);
        // Stop reading: what is still coming is not wanted.
        req.pause();
      }
      resolve(outcome);
    };
    const onData = (c: Buffer): void => {
      if (size + c.length > options.maxBytes) {
        finish({ kind: 'too-large', receivedBytes: size + c.length });
        return;
      }
      if (!options.budget.tryTake(c.length)) {
        finish({ kind: 'over-budget', receivedBytes: size + c.length });
        return;
      }
      size += c.length;
      chunks.push(c);
    };
    const timer = setInterval(() => {
      const verdict = judgeBodyProgress(size, options.now() - started, options.deadline);
      if (verdict.kind !== 'ok')
        finish({ kind: 'too-slow', receivedBytes: size, reason: verdict.reason });
    }, options.checkEveryMs ?? 250);
    const unregister =
      options.register?.({
        startedMs: started,
        receivedBytes: () => size,
        cut: (reason) => finish({ kind: 'too-slow', receivedBytes: size, reason }),
      }) ?? ((): void => undefined);
    req.on('data', onData);
    req.on('end', () => {
      const body = Buffer.concat(chunks, size);
      chunks.length = 0;
      let given = false;
      finish({
        kind: 'complete',
        body,
        release: () => {
          if (given) return;
          given = true;
          options.budget.give(size);
        },
      });
    });
    // A client that hangs up mid-body: 'error' (ECONNRESET "aborted") and/or 'close'.
    req.on('error', () => finish({ kind: 'aborted', receivedBytes: size }));
    req.on('close', () => {
      if (!req.complete) finish({ kind: 'aborted', receivedBytes: size });
    });
  });
}
