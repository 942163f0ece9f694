// The command-line grammar, getopt-like as rtla, cyclictest and aplay users expect it: long
// options `--top 5` / `--top=5`, short options `-D hw:0` / `-Dhw:0` / grouped `-qv`, a
// string option always takes the next word (so `--top -1` is the value -1, then refused by
// its own check with a clear reason, never "ambiguous"), `-` and `-5` are arguments, deprecated
// spellings map to their new names with a note. Pure: tokens and specs in, values out.
import { UsageError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { didYouMean } from './did-you-mean.js';

/** What the grammar needs to know about one option (a subset of the command's OptionSpec). */
export interface ArgvOptionSpec {
  type: 'boolean' | 'string';
  short?: string;
  multiple?: boolean;
  valueName?: string;
  /** Allowed values: anything else is a usage error naming them. */
  choices?: readonly string[];
  /** Old spellings still accepted (with a deprecation note): `periods` for `period-sizes`. */
  deprecatedAliases?: readonly string[];
}

export type RawValue = string | boolean | string[];

export interface ParsedArgv {
  /** Only the options that were given, under their canonical names. */
  values: Record<string, RawValue>;
  positionals: string[];
  /** One line per deprecated spelling used: what to write instead. */
  deprecations: string[];
}

/** A word that is a value or argument, not an option: `-`, negative numbers (`-1`, `-5M`). */
export function isValueLike(token: string): boolean {
  return token === '-' || /^-\.?\d/.test(token) || !token.startsWith('-');
}

function shown(name: string): string {
  return quoteUntrusted(name, 60);
}

/**
 * Parses one command's own words (everything before a literal `--`). Throws UsageError
 * naming the command for unknown options (with the closest known one), missing values,
 * values given to flags and values outside an option's allowed list.
 */
export function parseArgv(
  command: string,
  specs: Record<string, ArgvOptionSpec>,
  tokens: readonly string[],
): ParsedArgv {
  const see = ` (see: xrunhunt ${command} --help)`;
  const byLong = new Map<string, string>();
  const aliasOf = new Map<string, string>();
  const byShort = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) {
    byLong.set(name, name);
    for (const a of spec.deprecatedAliases ?? []) aliasOf.set(a, name);
    if (spec.short) byShort.set(spec.short, name);
  }
  const values: Record<string, RawValue> = {};
  const positionals: string[] = [];
  const deprecations: string[] = [];
  const store = (name: string, value: string | boolean): void => {
    const spec = specs[name]!;
    if (typeof value === 'string' && spec.choices && !spec.choices.includes(value)) {
      throw new UsageError(
        `invalid --${name} "${shown(value)}": expected one of ${spec.choices.join(', ')}${didYouMean(value, spec.choices)}${see}`,
      );
    }
    if (spec.multiple && typeof value === 'string') {
      const list = values[name];
      values[name] = Array.isArray(list) ? [...list, value] : [value];
    } else values[name] = value;
  };
  let i = 0;
  // The value of a string option: the rest of its own word, else the next word — which
  // may start with "-" only when it reads as a value (a negative number, "-").
  const takeValue = (name: string, label: string): string => {
    const next = tokens[i + 1];
    const want = specs[name]!.valueName ?? 'VALUE';
    if (next === undefined) throw new UsageError(`${label} needs a value (${want})${see}`);
    if (!isValueLike(next)) {
      throw new UsageError(
        `${label} needs a value (${want}), found the option "${shown(next)}"; if the value really starts with "-", write --${name}=${shown(next)}${see}`,
      );
    }
    i++;
    return next;
  };
  for (; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (isValueLike(tok)) {
      positionals.push(tok);
      continue;
    }
    if (tok.startsWith('--')) {
      const eq = tok.indexOf('=');
      const given = eq === -1 ? tok.slice(2) : tok.slice(2, eq);
      let name = byLong.get(given);
      if (name === undefined) {
        name = aliasOf.get(given);
        if (name !== undefined) {
          deprecations.push(
            `--${given} is deprecated for ${command}; use --${name} (same meaning)`,
          );
        }
      }
      if (name === undefined) {
        throw new UsageError(
          `unknown option --${shown(given)} for ${command}${didYouMean(given, [...byLong.keys()], '--')}${see}`,
        );
      }
      const spec = specs[name]!;
      if (spec.type === 'boolean') {
        if (eq !== -1) throw new UsageError(`--${given} takes no value${see}`);
        store(name, true);
      } else {
        store(name, eq !== -1 ? tok.slice(eq + 1) : takeValue(name, `--${given}`));
      }
      continue;
    }
    // A group of short options: -q, -qv, -Dhw:0, -d 10s.
    for (let k = 1; k < tok.length; k++) {
      const ch = tok[k]!;
      const name = byShort.get(ch);
      if (name === undefined) {
        const known = [...byShort.keys()].map((s) => `-${s}`).join(' ');
        throw new UsageError(
          `unknown option -${shown(ch)} for ${command}${known ? ` (short options: ${known})` : ''}${see}`,
        );
      }
      if (specs[name]!.type === 'boolean') {
        store(name, true);
        continue;
      }
      const attached = tok.slice(k + 1).replace(/^=/, '');
      store(name, attached !== '' ? attached : takeValue(name, `-${ch}`));
      break;
    }
  }
  return { values, positionals, deprecations };
}
