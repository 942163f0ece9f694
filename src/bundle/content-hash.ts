// The identity of a bundle: sha256 of its canonical JSON (keys sorted, no whitespace), taken
// after validation/upgrade, so the same bundle gzipped, re-indented or re-ordered hashes the
// same and is counted once.
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level; deterministic for equal values. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  const parts: string[] = [];
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** sha256 hex of the canonical JSON; the dedup key of the fleet store and inbox file names. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
