// Signature rules as data (in the spirit of Mozilla Socorro's sentinel / irrelevant /
// prefix lists): one regex per line in src/analysis/rules/*.txt, validated at load with
// file:line errors. The parse is pure; loadRules() is the thin synchronous IO shell.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorMessage, XrunhuntError } from '../errors.js';

/** Bumped whenever a rule list changes meaning: signatures from different versions may not group. */
export const RULES_VERSION = '1.5.0';

/** The rule lists, by role (file name without `.txt`). */
export const RULE_LIST_NAMES = [
  'printer',
  'probe',
  'alsa-core',
  'audio-driver',
  'irq-entry',
  'user-entry',
  'thread-entry',
  'idle',
  'primitives',
  'softirq-enable',
  'process-context',
  'irq-thread',
  'softirq-thread',
  'syscall-entry',
] as const;
export type RuleListName = (typeof RULE_LIST_NAMES)[number];

export interface RuleList {
  name: string;
  /** Number of patterns (function + module). */
  size: number;
  /** Whole-name match on a normalised function name. */
  matchFunction(fn: string): boolean;
  /** Whole-name match on a module tag. */
  matchModule(module: string | undefined): boolean;
}

export type RuleSet = Record<RuleListName, RuleList>;

const NEVER = /(?!)/;

/** Parses one rule list; a bad regex throws with `source:line`. */
export function parseRuleList(name: string, text: string, source = `${name}.txt`): RuleList {
  const fnParts: string[] = [];
  const modParts: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/\s+#.*$/, '').trim();
    if (line.length === 0 || line.startsWith('#')) return;
    const isModule = line.startsWith('module:');
    const pattern = isModule ? line.slice(7).trim() : line;
    try {
      new RegExp(`^(?:${pattern})$`);
    } catch (err) {
      throw new XrunhuntError(
        'format',
        `${source}:${i + 1}: invalid rule regex "${pattern}": ${errorMessage(err)}`,
        { hint: 'each non-comment line of a rule list must be one JavaScript regular expression' },
      );
    }
    (isModule ? modParts : fnParts).push(pattern);
  });
  const fnRe = fnParts.length ? new RegExp(`^(?:${fnParts.join('|')})$`) : NEVER;
  const modRe = modParts.length ? new RegExp(`^(?:${modParts.join('|')})$`) : NEVER;
  return {
    name,
    size: fnParts.length + modParts.length,
    matchFunction: (fn) => fnRe.test(fn),
    matchModule: (m) => m !== undefined && modRe.test(m),
  };
}

/** Builds a rule set from texts keyed by list name (missing lists are empty). */
export function parseRuleSet(texts: Partial<Record<RuleListName, string>>): RuleSet {
  const out = {} as RuleSet;
  for (const name of RULE_LIST_NAMES) out[name] = parseRuleList(name, texts[name] ?? '');
  return out;
}

const DEFAULT_RULES_DIR = fileURLToPath(new URL('./rules/', import.meta.url));
let cached: RuleSet | undefined;

/** Reads the rule lists synchronously (works from src/ under tsx and from dist/ after copy-assets). */
export function loadRules(dir: string = DEFAULT_RULES_DIR): RuleSet {
  if (dir === DEFAULT_RULES_DIR && cached) return cached;
  const texts: Partial<Record<RuleListName, string>> = {};
  for (const name of RULE_LIST_NAMES) {
    const file = `${dir.endsWith('/') ? dir : `${dir}/`}${name}.txt`;
    try {
      texts[name] = readFileSync(file, 'utf8');
    } catch (err) {
      throw new XrunhuntError(
        'internal',
        `cannot read signature rule list ${file}: ${String(err)}`,
        {
          hint: 'reinstall xrunhunt: the rule lists ship next to the code (dist/analysis/rules)',
        },
      );
    }
    // Validate with the real file name in errors.
    parseRuleList(name, texts[name] ?? '', file);
  }
  const set = parseRuleSet(texts);
  if (dir === DEFAULT_RULES_DIR) cached = set;
  return set;
}
