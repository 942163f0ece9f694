// Bridges the analyzer's signature rules to the fleet store's re-signing, without making
// the bundle format depend on the analyzer: loaded lazily, adapted to plain offender data.
import { XrunhuntError } from '../errors.js';
import type { BundleEventOffender, BundleOffenderClass } from './schema.js';
import type { SignFrames } from './store.js';
import { bundleFramesToLog } from './frame-text.js';

export interface Signer {
  sign: SignFrames;
  rulesVersion: string;
}

const CLASSES = new Set<BundleOffenderClass>(['kernel', 'idle', 'user', 'none']);

/** Coerces whatever the analyzer returns for one stack into plain offender data. */
export function toOffender(v: unknown): BundleEventOffender {
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const inner = (
    typeof o['offender'] === 'object' && o['offender'] !== null ? o['offender'] : o
  ) as Record<string, unknown>;
  const cls = inner['class'];
  const s = (k: string): string | null =>
    typeof inner[k] === 'string' ? (inner[k] as string) : null;
  return {
    class: CLASSES.has(cls as BundleOffenderClass) ? (cls as BundleOffenderClass) : 'none',
    function: s('function'),
    module: s('module'),
    signature: s('signature'),
  };
}

/**
 * Loads the analyzer's current rules (RULES_VERSION + analyzeText) and signs bundle frames
 * by letting the analyzer read them as a kernel log. Exists so `aggregate --resign` and
 * ingest use exactly the rules `analyze` uses.
 */
export async function loadAnalyzerSigner(): Promise<Signer> {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  let mod: Record<string, unknown>;
  try {
    mod = (await import(new URL(`../analysis/index.${ext}`, import.meta.url).href)) as Record<
      string,
      unknown
    >;
  } catch (err) {
    throw new XrunhuntError(
      'unsupported',
      `re-signing needs the analyzer's rules, which could not be loaded: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const version = mod['RULES_VERSION'];
  const analyzeText = mod['analyzeText'];
  if (
    (typeof version !== 'string' && typeof version !== 'number') ||
    typeof analyzeText !== 'function'
  ) {
    throw new XrunhuntError(
      'unsupported',
      're-signing needs RULES_VERSION and analyzeText from src/analysis, which this build lacks',
    );
  }
  const analyze = analyzeText as (text: string) => { events: { offender: unknown }[] };
  return {
    rulesVersion: String(version),
    sign: (frames) => {
      const events = analyze(bundleFramesToLog(frames).join('\n')).events;
      return events.length === 1
        ? toOffender(events[0]!.offender)
        : { class: 'none', function: null, module: null, signature: null };
    },
  };
}
