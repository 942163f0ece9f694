// Durations and sizes as users write them on the command line: `500ms`, `10s`, `2m`, `1h`;
// `64K`, `64M`, `2G` (binary multiples). Parsers throw UsageError naming the bad text.
import { UsageError } from './errors.js';
import { quoteUntrusted } from './text/untrusted-text.js';

const DURATION_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_BYTES: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
};

// "-5M" is a value the user meant (the parser hands it over); say why it cannot be one.
function refuseNegative(text: string, what: string, kind: string, examples: string): void {
  if (/^\s*-\s*\.?\d/.test(text)) {
    throw new UsageError(
      `invalid ${what} "${quoteUntrusted(text, 60)}": a ${kind} cannot be negative; expected e.g. ${examples}`,
    );
  }
}

/** Parses `500ms`, `10s`, `2m`, `1.5h` into milliseconds; a bare number means seconds. */
export function parseDuration(text: string, what = 'duration'): number {
  refuseNegative(text, what, 'duration', '500ms, 10s, 2m, 1h');
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!m) {
    throw new UsageError(
      `invalid ${what} "${quoteUntrusted(text, 60)}": expected a number with a unit, e.g. 500ms, 10s, 2m, 1h`,
    );
  }
  const unit = (m[2] ?? 's').toLowerCase();
  return Math.round(Number(m[1]) * DURATION_MS[unit]!);
}

/**
 * Parses `64M`, `2G`, `1.5G`, `4096` (bytes) into an exact whole number of bytes, binary
 * multiples; no spaces, nothing that is not a whole byte count or does not fit a safe integer
 * (8 PiB), so the number a kernel file is given is the one the user typed, never `1.07e+32`.
 */
export function parseSize(text: string, what = 'size'): number {
  refuseNegative(text, what, 'size', '512K, 64M, 2G');
  const m = /^(\d+)(?:\.(\d+))?([a-z]*)$/i.exec(text);
  const mult = m ? SIZE_BYTES[m[3]!.toLowerCase()] : undefined;
  if (!m || mult === undefined) {
    throw new UsageError(
      `invalid ${what} "${quoteUntrusted(text, 60)}": expected a number with a unit and no spaces, e.g. 512K, 64M, 2G`,
    );
  }
  const fraction = m[2] ?? '';
  const scale = 10n ** BigInt(fraction.length);
  const scaled = BigInt(m[1]! + fraction) * BigInt(mult);
  if (scaled % scale !== 0n)
    throw new UsageError(`invalid ${what} "${text}": not a whole number of bytes`);
  const bytes = scaled / scale;
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER))
    throw new UsageError(
      `invalid ${what} "${text}": too large (at most 8P, ${Number.MAX_SAFE_INTEGER} bytes)`,
    );
  return Number(bytes);
}

/**
 * Parses a whole number within bounds, exactly: digits with an optional minus, no spaces, no
 * exponent; names the option in the error.
 */
export function parseInteger(text: string, what: string, min = -Infinity, max = Infinity): number {
  if (!/^-?\d+$/.test(text)) {
    throw new UsageError(
      `invalid ${what} "${quoteUntrusted(text, 60)}": expected a whole number (digits only, no spaces)`,
    );
  }
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const negative = n < 0 && min >= 0 ? ' cannot be negative;' : '';
    const range =
      max === Infinity
        ? min === -Infinity
          ? 'a whole number that fits in 53 bits'
          : `a whole number of at least ${min}`
        : min === -Infinity
          ? `a whole number of at most ${max}`
          : `a value from ${min} to ${max}`;
    throw new UsageError(`invalid ${what} ${text}:${negative} expected ${range}`);
  }
  return n;
}

/** Formats milliseconds the way users write them (`250ms`, `1.5s`, `2m 30s`). */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 1000) return `${Number(ms.toFixed(ms < 10 ? 2 : 0))}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s ? `${m}m ${s}s` : `${m}m`;
}

/** Formats bytes with binary units (`512 B`, `64.0 MiB`). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}
