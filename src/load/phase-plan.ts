// Phase plans: the load schedule of a session written as one string,
// `idle:10s,write:30s:size=256M,metadata:30s`. Parsing is pure; every error points at the
// phase that is wrong and says what was expected.
import { UsageError, XrunhuntError } from '../errors.js';
import { parseDuration, parseInteger, parseSize } from '../units.js';
import { LOAD_KINDS, type LoadKind } from './types.js';

/** Per-phase settings a plan may give after the duration (`write:30s:size=256M:workers=2`). */
export interface PhaseOptions {
  sizeBytes?: number;
  workers?: number;
  dropCaches?: boolean;
  /** `external:30s:cmd=stress-ng --io 2` (split on spaces; a plan cannot hold commas). */
  command?: string[];
}

export interface Phase {
  kind: LoadKind;
  durationMs: number;
  /** Offset of the phase from the start of the plan, ms. */
  startMs: number;
  endMs: number;
  options?: PhaseOptions;
  /** The text this phase came from, for messages. */
  source: string;
}

const OPTION_KEYS = ['size', 'workers', 'drop-caches', 'cmd'] as const;

// Longest plan accepted: a phase per minute for a day is already far beyond any session.
const MAX_PHASES = 1000;

/** Parses a phase plan string into phases with start/end offsets; throws UsageError on the bad part. */
export function parsePhasePlan(text: string): Phase[] {
  const trimmed = text.trim();
  if (trimmed === '') {
    throw new UsageError(
      'empty phase plan: expected KIND:DURATION[,KIND:DURATION...], e.g. idle:10s,write:30s',
    );
  }
  const parts = trimmed.split(',');
  if (parts.length > MAX_PHASES) {
    throw new UsageError(
      `phase plan has ${parts.length} phases; at most ${MAX_PHASES} are accepted`,
    );
  }
  const phases: Phase[] = [];
  let t = 0;
  for (const raw of parts) {
    const phase = parsePhase(raw.trim(), t);
    phases.push(phase);
    t = phase.endMs;
  }
  return phases;
}

/** Total length of a plan in ms. */
export function phasePlanDurationMs(phases: readonly Phase[]): number {
  return phases.length === 0 ? 0 : phases[phases.length - 1]!.endMs;
}

/** The phase running at `offsetMs` into the plan (undefined before the start or after the end). */
export function phaseAt(phases: readonly Phase[], offsetMs: number): Phase | undefined {
  return phases.find((p) => offsetMs >= p.startMs && offsetMs < p.endMs);
}

function parsePhase(part: string, startMs: number): Phase {
  const at = (msg: string): UsageError =>
    new UsageError(`invalid phase plan at "${part}": ${msg}`, {
      hint: `a plan is KIND:DURATION[:key=value...] joined by commas, e.g. idle:10s,write:30s:size=256M; kinds: ${LOAD_KINDS.join(', ')}`,
    });
  if (part === '') throw at('empty phase (two commas in a row, or a comma at the end?)');
  const [kindText, durationText, ...optionTexts] = part.split(':');
  const kind = LOAD_KINDS.find((k) => k === kindText);
  if (!kind) {
    throw at(`unknown load "${kindText ?? ''}"; known: ${LOAD_KINDS.join(', ')}`);
  }
  if (durationText === undefined || durationText === '') {
    throw at(`missing duration after "${kind}"; expected e.g. ${kind}:30s`);
  }
  let durationMs: number;
  try {
    durationMs = parseDuration(durationText, 'duration');
  } catch (err) {
    throw at(messageOf(err));
  }
  if (durationMs <= 0) throw at(`duration must be more than 0, got "${durationText}"`);
  const options: PhaseOptions = {};
  for (const opt of optionTexts) {
    const eq = opt.indexOf('=');
    const key = eq === -1 ? opt : opt.slice(0, eq);
    const value = eq === -1 ? undefined : opt.slice(eq + 1);
    try {
      applyOption(options, key, value);
    } catch (err) {
      throw at(messageOf(err));
    }
  }
  if (kind === 'external' && !options.command) {
    throw at('an external phase needs its command: external:30s:cmd=stress-ng --io 2');
  }
  if (kind !== 'external' && options.command) {
    throw at(`cmd= applies only to external phases, not to "${kind}"`);
  }
  return {
    kind,
    durationMs,
    startMs,
    endMs: startMs + durationMs,
    ...(Object.keys(options).length > 0 ? { options } : {}),
    source: part,
  };
}

function applyOption(options: PhaseOptions, key: string, value: string | undefined): void {
  const need = (): string => {
    if (value === undefined || value === '')
      throw new Error(`option "${key}" needs a value (${key}=...)`);
    return value;
  };
  switch (key) {
    case 'size':
      options.sizeBytes = parseSize(need(), 'size');
      if (options.sizeBytes <= 0) throw new Error('size must be more than 0');
      return;
    case 'workers':
      options.workers = parseInteger(need(), 'workers', 1, 256);
      return;
    case 'drop-caches':
      if (value !== undefined && !['1', 'true', 'yes', '0', 'false', 'no'].includes(value)) {
        throw new Error(`drop-caches takes no value or one of 1/0, true/false, got "${value}"`);
      }
      options.dropCaches = value === undefined || ['1', 'true', 'yes'].includes(value);
      return;
    case 'cmd': {
      const words = need()
        .split(/\s+/)
        .filter((w) => w !== '');
      if (words.length === 0) throw new Error('cmd= is empty');
      options.command = words;
      return;
    }
    default:
      throw new Error(`unknown option "${key}"; known: ${OPTION_KEYS.join(', ')}`);
  }
}

function messageOf(err: unknown): string {
  if (err instanceof XrunhuntError || err instanceof Error) return err.message;
  return String(err);
}
