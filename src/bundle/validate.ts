// Pure validation of a parsed bundle: every field checked, the first problem reported with
// its path and the value found ("bundle X: phases[2].endMs: expected a number, found "abc"").
// Older format versions are upgraded first (upgrade.ts); newer ones are refused.
import { XrunhuntError } from '../errors.js';
import {
  BUNDLE_EVENT_KINDS,
  BUNDLE_KINDS,
  BUNDLE_OFFENDER_CLASSES,
  CAPTURE_BACKENDS,
  FORMAT_VERSION,
  KERNEL_LOG_SOURCES,
  PREEMPT_MODELS,
  type Bundle,
  type BundleCard,
  type BundleEvent,
  type BundleHistograms,
  type BundleHost,
  type BundleOffenderRank,
  type BundleParams,
  type BundlePhase,
  type BundleThroughput,
  type BundleTry,
  type BundleTryArm,
  type BundleTryRate,
  type BundleXrun,
  type LatencySummary,
} from './schema.js';
import { upgradeBundle } from './upgrade.js';
import { escapeControlChars } from '../text/untrusted-text.js';

type Obj = Record<string, unknown>;

/** Thrown internally with the path of the offending value. */
class Invalid extends Error {
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`${path}: ${what}`);
  }
}

/** Shows a found value briefly: strings quoted, long values cut, types named. */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing (missing)';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') {
    const s = v.length > 40 ? `${v.slice(0, 40)}…` : v;
    // JSON.stringify escapes C0 controls; C1 (8-bit CSI) and bidi overrides need this too.
    return escapeControlChars(JSON.stringify(s));
  }
  return String(v);
}

const fail = (path: string, expected: string, found: unknown): never => {
  throw new Invalid(path, `expected ${expected}, found ${describeValue(found)}`);
};

const obj = (v: unknown, path: string): Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Obj)
    : fail(path, 'an object', v);

const str = (o: Obj, k: string, path: string, maxLen = 4096): string => {
  const v = o[k];
  if (typeof v !== 'string') return fail(`${path}${k}`, 'a string', v);
  if (v.length > maxLen) return fail(`${path}${k}`, `a string of at most ${maxLen} characters`, v);
  return v;
};

const strOrNull = (o: Obj, k: string, path: string): string | null =>
  o[k] === null ? null : str(o, k, path);

const num = (o: Obj, k: string, path: string, min = -Infinity): number => {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail(`${path}${k}`, 'a number', v);
  if (v < min) return fail(`${path}${k}`, `a number ≥ ${min}`, v);
  return v;
};

const int = (o: Obj, k: string, path: string, min = 0): number => {
  const v = num(o, k, path, min);
  return Number.isInteger(v) ? v : fail(`${path}${k}`, 'a whole number', v);
};

const numOrNull = (o: Obj, k: string, path: string, min = -Infinity): number | null =>
  o[k] === null ? null : num(o, k, path, min);

const intOrNull = (o: Obj, k: string, path: string, min = 0): number | null =>
  o[k] === null ? null : int(o, k, path, min);

const bool = (o: Obj, k: string, path: string): boolean =>
  typeof o[k] === 'boolean' ? (o[k] as boolean) : fail(`${path}${k}`, 'true or false', o[k]);

const oneOf = <T extends string>(o: Obj, k: string, path: string, allowed: readonly T[]): T => {
  const v = o[k];
  return typeof v === 'string' && (allowed as readonly string[]).includes(v)
    ? (v as T)
    : fail(`${path}${k}`, `one of ${allowed.join('|')}`, v);
};

const arr = <T>(o: Obj, k: string, path: string, each: (v: unknown, p: string) => T): T[] => {
  const v = o[k];
  if (!Array.isArray(v)) return fail(`${path}${k}`, 'an array', v);
  return v.map((item, i) => each(item, `${path}${k}[${i}]`));
};

const strItem = (v: unknown, p: string): string =>
  typeof v === 'string' ? v : fail(p, 'a string', v);

function card(v: unknown, p: string): BundleCard {
  const o = obj(v, p);
  const q = `${p}.`;
  return {
    index: int(o, 'index', q),
    id: str(o, 'id', q),
    driver: str(o, 'driver', q),
    name: str(o, 'name', q),
  };
}

function host(v: unknown, p: string): BundleHost {
  const o = obj(v, p);
  const q = `${p}.`;
  const flags = obj(o['configFlags'], `${q}configFlags`);
  const configFlags: Record<string, boolean> = {};
  // Keys sorted: a validated bundle's JSON text is canonical (see bundleHash).
  for (const [k, f] of Object.entries(flags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    configFlags[k] = typeof f === 'boolean' ? f : fail(`${q}configFlags.${k}`, 'true or false', f);
  }
  return {
    kernelRelease: str(o, 'kernelRelease', q, 256),
    kernelVersion: str(o, 'kernelVersion', q, 512),
    arch: str(o, 'arch', q, 64),
    preempt: oneOf(o, 'preempt', q, PREEMPT_MODELS),
    hz: intOrNull(o, 'hz', q),
    configFlags,
    cards: arr(o, 'cards', q, card),
    cpus: int(o, 'cpus', q),
    memBytes: num(o, 'memBytes', q, 0),
    threadirqs: bool(o, 'threadirqs', q),
  };
}

function params(v: unknown, p: string): BundleParams | null {
  if (v === null) return null;
  const o = obj(v, p);
  const q = `${p}.`;
  return {
    device: str(o, 'device', q),
    rateHz: int(o, 'rateHz', q, 1),
    channels: int(o, 'channels', q, 1),
    format: str(o, 'format', q),
    periodFrames: int(o, 'periodFrames', q, 1),
    bufferFrames: int(o, 'bufferFrames', q, 1),
    rtPolicy: str(o, 'rtPolicy', q),
    rtPriority: intOrNull(o, 'rtPriority', q),
    mask: intOrNull(o, 'mask', q),
    phases: str(o, 'phases', q),
    captureBackend: oneOf(o, 'captureBackend', q, CAPTURE_BACKENDS),
  };
}

function throughput(v: unknown, p: string): BundleThroughput | null {
  if (v === null) return null;
  const o = obj(v, p);
  const q = `${p}.`;
  const t: BundleThroughput = { bytes: num(o, 'bytes', q, 0), mbPerSec: num(o, 'mbPerSec', q, 0) };
  if (o['ops'] !== undefined) t.ops = num(o, 'ops', q, 0);
  if (o['opsPerSec'] !== undefined) t.opsPerSec = num(o, 'opsPerSec', q, 0);
  return t;
}

function phase(v: unknown, p: string): BundlePhase {
  const o = obj(v, p);
  const q = `${p}.`;
  const startMs = num(o, 'startMs', q, 0);
  const endMs = num(o, 'endMs', q, 0);
  if (endMs < startMs) fail(`${q}endMs`, `a time ≥ startMs (${startMs})`, endMs);
  return {
    name: str(o, 'name', q),
    kind: str(o, 'kind', q),
    startMs,
    endMs,
    throughput: throughput(o['throughput'], `${q}throughput`),
    xruns: int(o, 'xruns', q),
  };
}

function xrun(v: unknown, p: string): BundleXrun {
  const o = obj(v, p);
  const q = `${p}.`;
  const x: BundleXrun = {
    timeMs: num(o, 'timeMs', q, 0),
    durationMs: numOrNull(o, 'durationMs', q, 0),
    phase: strOrNull(o, 'phase', q),
    kernelEventIndex: intOrNull(o, 'kernelEventIndex', q),
  };
  if (o['monotonicNs'] !== undefined) x.monotonicNs = num(o, 'monotonicNs', q, 0);
  return x;
}

function event(v: unknown, p: string): BundleEvent {
  const o = obj(v, p);
  const q = `${p}.`;
  const off = obj(o['offender'], `${q}offender`);
  const oq = `${q}offender.`;
  return {
    kind: oneOf(o, 'kind', q, BUNDLE_EVENT_KINDS),
    pcm: strOrNull(o, 'pcm', q),
    time: numOrNull(o, 'time', q),
    phase: strOrNull(o, 'phase', q),
    offender: {
      class: oneOf(off, 'class', oq, BUNDLE_OFFENDER_CLASSES),
      function: strOrNull(off, 'function', oq),
      module: strOrNull(off, 'module', oq),
      signature: strOrNull(off, 'signature', oq),
    },
    frames: arr(o, 'frames', q, strItem),
  };
}

function offenderRank(v: unknown, p: string): BundleOffenderRank {
  const o = obj(v, p);
  const q = `${p}.`;
  const share = num(o, 'share', q, 0);
  if (share > 1) fail(`${q}share`, 'a fraction from 0 to 1', share);
  return {
    function: strOrNull(o, 'function', q),
    module: strOrNull(o, 'module', q),
    signature: str(o, 'signature', q),
    count: int(o, 'count', q),
    share,
  };
}

function summary(v: unknown, p: string): LatencySummary {
  const o = obj(v, p);
  const q = `${p}.`;
  return {
    min: num(o, 'min', q),
    p50: num(o, 'p50', q),
    p99: num(o, 'p99', q),
    p999: num(o, 'p999', q),
    max: num(o, 'max', q),
    count: int(o, 'count', q),
  };
}

function histograms(v: unknown, p: string): BundleHistograms | null {
  if (v === null) return null;
  const o = obj(v, p);
  return {
    headroomUs: summary(o['headroomUs'], `${p}.headroomUs`),
    writeUs: summary(o['writeUs'], `${p}.writeUs`),
  };
}

/** Checks an already-current (formatVersion 1) document; returns a clean copy. */
function validateCurrent(o: Obj): Bundle {
  const tool = obj(o['tool'], 'tool');
  if (tool['name'] !== 'xrunhunt') fail('tool.name', '"xrunhunt"', tool['name']);
  const createdAt = str(o, 'createdAt', '', 64);
  if (Number.isNaN(Date.parse(createdAt))) fail('createdAt', 'an ISO 8601 date', createdAt);
  const machineId = str(o, 'machineId', '', 128);
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(machineId)) {
    fail('machineId', 'letters, digits, "-" or "_"', machineId);
  }
  const rv = o['rulesVersion'];
  const rulesVersion =
    typeof rv === 'number' && Number.isFinite(rv) ? String(rv) : str(o, 'rulesVersion', '', 64);
  const events = arr(o, 'events', '', event);
  const xruns = arr(o, 'xruns', '', xrun);
  xruns.forEach((x, i) => {
    if (x.kernelEventIndex !== null && x.kernelEventIndex >= events.length) {
      fail(
        `xruns[${i}].kernelEventIndex`,
        `an index into events (0..${events.length - 1})`,
        x.kernelEventIndex,
      );
    }
  });
  const kc = obj(o['kernelCapture'], 'kernelCapture');
  return {
    formatVersion: FORMAT_VERSION,
    tool: { name: 'xrunhunt', version: str(tool, 'version', 'tool.', 64) },
    kind: oneOf(o, 'kind', '', BUNDLE_KINDS),
    createdAt,
    machineId,
    scrubbed: bool(o, 'scrubbed', ''),
    host: host(o['host'], 'host'),
    params: params(o['params'], 'params'),
    durationMs: num(o, 'durationMs', '', 0),
    playbackMs: num(o, 'playbackMs', '', 0),
    phases: arr(o, 'phases', '', phase),
    xruns,
    kernelCapture: {
      source: oneOf(kc, 'source', 'kernelCapture.', KERNEL_LOG_SOURCES),
      lostMessages: int(kc, 'lostMessages', 'kernelCapture.'),
    },
    events,
    offenders: arr(o, 'offenders', '', offenderRank),
    histograms: histograms(o['histograms'], 'histograms'),
    rulesVersion,
    warnings: arr(o, 'warnings', '', strItem),
    ...(o['try'] === undefined ? {} : { try: tryBlock(o['try'], 'try') }),
  };
}

/** One A/B rate of a `try` bundle. */
function tryRate(v: unknown, p: string): BundleTryRate {
  const o = obj(v, p);
  const q = `${p}.`;
  const arm = (name: string): BundleTryArm => {
    const a = obj(o[name], `${q}${name}`);
    return {
      count: int(a, 'count', `${q}${name}.`),
      minutes: num(a, 'minutes', `${q}${name}.`, 0),
    };
  };
  const nullableNum = (key: string): number | null => (o[key] === null ? null : num(o, key, q, 0));
  return {
    a: arm('a'),
    b: arm('b'),
    ratio: nullableNum('ratio'),
    low: num(o, 'low', q, 0),
    high: nullableNum('high'),
    p: num(o, 'p', q, 0),
    significant: bool(o, 'significant', q),
  };
}

/** The `try` section: knobs, rounds, per-phase rates, verdict. */
function tryBlock(v: unknown, p: string): BundleTry {
  const o = obj(v, p);
  const q = `${p}.`;
  const top = o['topOffender'];
  return {
    knobs: arr(o, 'knobs', q, (k, kp) => {
      const ko = obj(k, kp);
      return {
        spec: str(ko, 'spec', `${kp}.`),
        what: str(ko, 'what', `${kp}.`),
        from: str(ko, 'from', `${kp}.`),
        to: str(ko, 'to', `${kp}.`),
      };
    }),
    rounds: int(o, 'rounds', q),
    phases: arr(o, 'phases', q, (ph, pp) => ({
      name: str(obj(ph, pp), 'name', `${pp}.`),
      ...tryRate(ph, pp),
    })),
    total: o['total'] === null ? null : tryRate(o['total'], `${q}total`),
    topOffender:
      top === null || top === undefined
        ? null
        : (() => {
            const t = obj(top, `${q}topOffender`);
            const tq = `${q}topOffender.`;
            return {
              name: str(t, 'name', tq),
              a: int(t, 'a', tq),
              b: int(t, 'b', tq),
              rate: tryRate(t['rate'], `${tq}rate`),
            };
          })(),
    verdict: str(o, 'verdict', q, 4000),
  };
}

/**
 * Turns parsed JSON into a current Bundle or throws XrunhuntError('format') naming the
 * bundle, the field path and the value found. Exists so every reader (analyze, compare,
 * aggregate, serve) trusts a bundle only after one shared, precise check.
 */
export function validateBundle(json: unknown, name = 'bundle'): Bundle {
  const label = name === 'bundle' ? 'bundle' : `bundle ${name}`;
  try {
    const top = obj(json, '(top level)');
    const upgraded = upgradeBundle(top, label);
    return validateCurrent(upgraded);
  } catch (err) {
    // Field paths hold the bundle's own keys and values its text: escaped before anyone prints.
    if (err instanceof Invalid) {
      throw new XrunhuntError('format', escapeControlChars(`${label}: ${err.message}`), {
        hint: 'the file is damaged or was not written by xrunhunt; the format is described in docs/aggregate.md',
      });
    }
    if (err instanceof XrunhuntError) {
      throw new XrunhuntError(err.code, escapeControlChars(err.message), {
        ...(err.hint === undefined ? {} : { hint: err.hint }),
        cause: err,
      });
    }
    throw err;
  }
}

/** Cheap sniff: does this text look like a bundle (a JSON object with formatVersion)? */
export function isBundleJson(text: string): boolean {
  const head = text.trimStart();
  if (!head.startsWith('{')) return false;
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) && 'formatVersion' in v;
  } catch {
    return false;
  }
}
