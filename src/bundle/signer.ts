// Bridges the analyzer's signature rules to the fleet store's re-signing, without making
// the bundle format depend on the analyzer: loaded lazily, adapted to plain offender data.
import { XrunhuntError } from '../errors.js';
import type { BundleEventOffender, BundleOffenderClass } from './schema.js';
import type { SignFrames } from './store.js';

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

/** Names the analyzer may export the frames → offender function under. */
const SIGN_EXPORTS = ['signFrames', 'offenderFromFrames', 'signatureFromFrames', 'classifyFrames'];

/**
 * Loads the analyzer's current rules (RULES_VERSION + a frames → offender function).
 * Exists so `aggregate --resign` and ingest use exactly the rules `analyze` uses.
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
      {
        cause: err,
      },
    );
  }
  const version = mod['RULES_VERSION'];
  const fnName = SIGN_EXPORTS.find((n) => typeof mod[n] === 'function');
  if ((typeof version !== 'string' && typeof version !== 'number') || !fnName) {
    throw new XrunhuntError(
      'unsupported',
      `re-signing needs RULES_VERSION and a frames → offender function (${SIGN_EXPORTS.join(' | ')}) from src/analysis; this build has ${fnName ? 'no RULES_VERSION' : 'no such function'}`,
    );
  }
  const fn = mod[fnName] as (frames: string[]) => unknown;
  return { rulesVersion: String(version), sign: (frames) => toOffender(fn(frames)) };
}
