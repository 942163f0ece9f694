// The upgrade chain: each step turns version N into N+1, so a reader of the current version
// reads every older bundle. Version 0 is the pre-release draft format (host.kernel instead
// of host.kernelRelease, events[].stack with raw "+0x1a/0x40" offsets instead of normalised
// frames, no kernelCapture, no playbackMs, no rulesVersion); it exists so the chain is real
// and tested. Version 1 → 2 is a pure addition (the flight recorder's breakdown, the detection).
import { XrunhuntError } from '../errors.js';
import { FORMAT_VERSION } from './schema.js';

type Obj = Record<string, unknown>;
type Step = (doc: Obj) => Obj;

/** Strips "+0x1a/0x40" offsets and "? " markers so v0 stacks look like v1 frames. */
function normaliseRawFrame(line: unknown): unknown {
  if (typeof line !== 'string') return line;
  return line
    .replace(/^\s*\?\s*/, '')
    .replace(/\+0x[0-9a-f]+\/0x[0-9a-f]+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const v0ToV1: Step = (doc) => {
  const out: Obj = { ...doc, formatVersion: 1 };
  const host = doc['host'];
  if (typeof host === 'object' && host !== null && !Array.isArray(host)) {
    const h = { ...(host as Obj) };
    if (h['kernelRelease'] === undefined && h['kernel'] !== undefined) {
      h['kernelRelease'] = h['kernel'];
      delete h['kernel'];
    }
    out['host'] = h;
  }
  if (Array.isArray(doc['events'])) {
    out['events'] = (doc['events'] as unknown[]).map((e) => {
      if (typeof e !== 'object' || e === null || Array.isArray(e)) return e;
      const ev = { ...(e as Obj) };
      if (ev['frames'] === undefined && Array.isArray(ev['stack'])) {
        ev['frames'] = (ev['stack'] as unknown[]).map(normaliseRawFrame);
        delete ev['stack'];
      }
      return ev;
    });
  }
  if (out['kernelCapture'] === undefined)
    out['kernelCapture'] = { source: 'none', lostMessages: 0 };
  if (out['playbackMs'] === undefined) out['playbackMs'] = doc['durationMs'];
  if (out['rulesVersion'] === undefined) out['rulesVersion'] = '0';
  return out;
};

// Version 2 only adds optional fields (events[].detection, events[].breakdown, the run's
// breakdown) and the offender class 'detector-only': a v1 document is a v2 document without
// them. Its content hash stays the v1 one (content-hash.ts).
const v1ToV2: Step = (doc) => ({ ...doc, formatVersion: 2 });

/** STEPS[n] upgrades version n to n+1. */
const STEPS: Step[] = [v0ToV1, v1ToV2];

/**
 * Brings any supported older bundle document up to FORMAT_VERSION; refuses newer or
 * unrecognised versions with what to do. Exists so old bundles never become unreadable.
 */
export function upgradeBundle(doc: Obj, label = 'bundle'): Obj {
  const v = doc['formatVersion'];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new XrunhuntError(
      'format',
      `${label}: formatVersion: expected a whole number from 0 to ${FORMAT_VERSION}, found ${v === undefined ? 'nothing (missing)' : JSON.stringify(v)}`,
      { hint: 'this is not an xrunhunt bundle, or it is damaged' },
    );
  }
  if (v > FORMAT_VERSION) {
    throw new XrunhuntError(
      'format',
      `${label} was written by a newer xrunhunt (formatVersion ${v}); this version reads up to ${FORMAT_VERSION}`,
      { hint: 'upgrade xrunhunt (npm install -g xrunhunt@latest)' },
    );
  }
  let cur = doc;
  for (let n = v; n < FORMAT_VERSION; n++) cur = STEPS[n]!(cur);
  return cur;
}
