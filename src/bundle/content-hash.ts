// Content identity: the same bundle gzipped, re-indented or with its keys re-ordered hashes
// the same and is counted once. contentHash works on any JSON value (keys sorted);
// bundleHash is the fast form for validated bundles and the one the store and serve use.
import { createHash } from 'node:crypto';
import type { Bundle } from './schema.js';

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

/** Whether a bundle uses anything format 2 added (a detection, a breakdown, 'detector-only'). */
export function usesFormat2(bundle: Bundle): boolean {
  if (bundle.breakdown !== undefined) return true;
  for (const e of bundle.events) {
    if (e.detection !== undefined || e.breakdown !== undefined) return true;
    if (e.offender.class === 'detector-only') return true;
  }
  return false;
}

const V2_HEAD = '{"formatVersion":2,';
const V1_HEAD = '{"formatVersion":1,';

/**
 * THE content hash of a bundle (store dedup key, inbox file name): sha256 of the JSON text
 * of the bundle as validateBundle / parseBundleBytes return it. The validator rebuilds every
 * object in a fixed key order (configFlags sorted), so that text is canonical for the
 * bundle's content and no extra canonicalisation pass is needed (a third of the cost of
 * contentHash, which matters at 100,000 bundles). Only pass validated bundles.
 * Format 2: a bundle that uses nothing format 2 added is hashed as its format 1 text
 * (formatVersion 1), so every v1 (and v0) bundle keeps the hash existing stores keyed it by;
 * one that carries a detection, a breakdown or 'detector-only' is hashed as its v2 text.
 */
export function bundleHash(bundle: Bundle): string {
  let text = JSON.stringify(bundle);
  if (!usesFormat2(bundle) && text.startsWith(V2_HEAD)) text = V1_HEAD + text.slice(V2_HEAD.length);
  return createHash('sha256').update(text).digest('hex');
}
