// Per-client rate limiting for the upload receiver (pure: the caller passes the time). A
// token bucket per client key: `burst` uploads at once, refilled at `count` per `periodMs`.
// The table of clients is bounded so a flood of addresses cannot grow memory without limit.

export interface RateLimitConfig {
  /** Uploads allowed per period (also the burst size). */
  count: number;
  periodMs: number;
  /** Most clients tracked at once; the least recently seen is forgotten first. */
  maxClients?: number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/** Default client table bound: 10,000 buckets ≈ 1 MB. */
export const DEFAULT_MAX_CLIENTS = 10_000;

/** Parses "60/1m", "10/s", "1000/1h" into a config (count per period). */
export function parseRateLimit(text: string): RateLimitConfig | null {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m|h)\s*$/i.exec(text);
  if (!m) return null;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const periodMs = Number(m[2] ?? '1') * unit[m[3]!.toLowerCase()]!;
  const count = Number(m[1]);
  return count > 0 && periodMs > 0 ? { count, periodMs } : null;
}

/** Creates a limiter; `take(key, nowMs)` spends one token or says how long to wait. */
export function createRateLimiter(config: RateLimitConfig): {
  take(key: string, nowMs: number): RateDecision;
  size(): number;
} {
  const max = config.maxClients ?? DEFAULT_MAX_CLIENTS;
  const perMs = config.count / config.periodMs;
  // Map iteration order is insertion order: re-inserting on use keeps it LRU.
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, nowMs) {
      const b = buckets.get(key) ?? { tokens: config.count, at: nowMs };
      buckets.delete(key);
      b.tokens = Math.min(config.count, b.tokens + Math.max(0, nowMs - b.at) * perMs);
      b.at = nowMs;
      let decision: RateDecision;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        decision = { ok: true };
      } else {
        decision = { ok: false, retryAfterMs: Math.ceil((1 - b.tokens) / perMs) };
      }
      buckets.set(key, b);
      while (buckets.size > max) buckets.delete(buckets.keys().next().value as string);
      return decision;
    },
    size: () => buckets.size,
  };
}
