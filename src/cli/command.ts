// The command contract: each command file declares its options once; parsing, `--help`
// text (with units) and typed values all come from that declaration.
import type { Readable, Writable } from 'node:stream';
import { UsageError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { parseArgv } from './argv.js';

/** What a command may touch of the outside world; tests pass their own streams. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stdout / stderr are terminals (live progress and colours only then). */
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

export interface OptionSpec {
  type: 'boolean' | 'string';
  short?: string;
  multiple?: boolean;
  default?: string | boolean;
  /** Placeholder in help, e.g. `DURATION`, `FRAMES`, `FILE`. */
  valueName?: string;
  /** One line; say the unit for durations and sizes (e.g. "play for DURATION (500ms, 10s, 2m)"). */
  description: string;
  /** Allowed values: checked by the parser, listed in --help, offered by shell completion. */
  choices?: readonly string[];
  /** Old spellings still accepted with a deprecation note (a flag renamed to mean one thing). */
  deprecatedAliases?: readonly string[];
}

export type OptionSpecs = Record<string, OptionSpec>;

type StringOf<S extends OptionSpec> = S['choices'] extends readonly (infer C extends string)[]
  ? C
  : string;

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? boolean
  : S['multiple'] extends true
    ? StringOf<S>[]
    : S['default'] extends string
      ? StringOf<S>
      : StringOf<S> | undefined;

/** Typed option values, derived from the declaration. */
export type OptionValues<T extends OptionSpecs> = { [K in keyof T]: ValueOf<T[K]> };

export interface CommandContext<T extends OptionSpecs = OptionSpecs> {
  io: CliIo;
  values: OptionValues<T>;
  positionals: string[];
  /** Arguments after a literal `--` (e.g. `lab run -- session ...`). */
  rest: string[];
  /** Aborted on SIGINT / SIGTERM / SIGHUP: long-running commands stop and clean up. */
  signal: AbortSignal;
  /** -q/--quiet: progress and notes on stderr are dropped (io.stderr already filters them). */
  quiet: boolean;
  /** --debug: extra diagnostics on stderr; internal errors print their stack trace. */
  debug: boolean;
}

export interface Command<T extends OptionSpecs = OptionSpecs> {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Usage line after `xrunhunt `, e.g. `analyze [FILE...|-] [options]`. */
  usage: string;
  /** Paragraphs shown by `--help` after the usage line. */
  description?: string;
  examples?: string[];
  options: T;
  /** Whether positional arguments are accepted (otherwise they are a usage error). */
  positionals?: boolean;
  /** Exit code: 0 clean, 1 tool error, 2 xruns / threshold hit / blocked diagnosis. */
  run(ctx: CommandContext<T>): Promise<number>;
}

/** A command with subcommands (`debug status`, `lab build`). */
export interface CommandGroup {
  name: string;
  summary: string;
  description?: string;
  subcommands: AnyCommand[];
}

// Commands are stored type-erased; each one's run() sees its own typed values.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = Command<any>;

/** Declares a command with typed option values (the identity function, for inference). */
export function defineCommand<const T extends OptionSpecs>(command: Command<T>): Command<T> {
  return command;
}

/** Options every command takes; the framework acts on them, commands never need to. */
export const COMMON_OPTIONS = {
  help: { type: 'boolean', short: 'h', description: 'show this help' },
  quiet: {
    type: 'boolean',
    short: 'q',
    description: 'no progress or notes on stderr (warnings and errors still shown)',
  },
  debug: {
    type: 'boolean',
    description: 'extra diagnostics on stderr; stack traces for internal errors',
  },
} as const satisfies OptionSpecs;

export interface ParsedCommandArgs {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  values: OptionValues<any>;
  positionals: string[];
  rest: string[];
  help: boolean;
  quiet: boolean;
  debug: boolean;
  /** Deprecated spellings used, each with what to write instead. */
  deprecations: string[];
}

/** Parses argv for one command; unknown options and bad positionals become UsageErrors. */
export function parseCommandArgs(command: AnyCommand, argv: string[]): ParsedCommandArgs {
  const dashdash = argv.indexOf('--');
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const rest = dashdash === -1 ? [] : argv.slice(dashdash + 1);
  const specs: OptionSpecs = { ...COMMON_OPTIONS, ...(command.options as OptionSpecs) };
  const parsed = parseArgv(command.name, specs, own);
  const help = parsed.values['help'] === true;
  if (!help && !command.positionals && parsed.positionals.length > 0) {
    throw new UsageError(
      `unexpected argument "${quoteUntrusted(parsed.positionals[0]!, 80)}" for ${command.name} (see: xrunhunt ${command.name} --help)`,
    );
  }
  const values: Record<string, string | boolean | string[] | undefined> = {};
  for (const [name, spec] of Object.entries(command.options as OptionSpecs)) {
    const v = parsed.values[name];
    if (v !== undefined) values[name] = v;
    else if (spec.default !== undefined) values[name] = spec.default;
    else if (spec.type === 'boolean') values[name] = false;
    else if (spec.multiple) values[name] = [];
    else values[name] = undefined;
  }
  return {
    values,
    positionals: parsed.positionals,
    rest,
    help,
    quiet: parsed.values['quiet'] === true,
    debug: parsed.values['debug'] === true,
    deprecations: parsed.deprecations,
  };
}

/** Renders `--help` for one command: usage, description, options with defaults, examples. */
export function renderCommandHelp(command: AnyCommand): string {
  const lines = [`Usage: xrunhunt ${command.usage}`, ''];
  if (command.summary) lines.push(command.summary, '');
  if (command.description) lines.push(command.description.trim(), '');
  const rows: [string, string][] = [];
  const all: OptionSpecs = { ...(command.options as OptionSpecs), ...COMMON_OPTIONS };
  for (const [name, spec] of Object.entries(all)) {
    const flag = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${spec.type === 'string' ? ` ${spec.valueName ?? 'VALUE'}` : ''}`;
    const def =
      spec.default !== undefined && spec.type === 'string'
        ? ` (default: ${String(spec.default)})`
        : '';
    const choices = spec.choices ? ` [${spec.choices.join('|')}]` : '';
    const aliases = spec.deprecatedAliases?.length
      ? ` (old spelling ${spec.deprecatedAliases.map((a) => `--${a}`).join(', ')}: deprecated)`
      : '';
    rows.push([
      flag,
      `${spec.description}${choices}${def}${spec.multiple ? ' (repeatable)' : ''}${aliases}`,
    ]);
  }
  lines.push('Options:');
  const width = Math.min(34, Math.max(...rows.map(([f]) => f.length)) + 2);
  for (const [flag, desc] of rows) {
    lines.push(
      flag.length >= width
        ? `  ${flag}\n  ${' '.repeat(width)}${desc}`
        : `  ${flag.padEnd(width)}${desc}`,
    );
  }
  if (command.examples?.length) {
    lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  }
  return lines.join('\n') + '\n';
}

/** Renders `--help` for a command group: its subcommands with their summaries. */
export function renderGroupHelp(group: CommandGroup): string {
  const width = Math.max(...group.subcommands.map((c) => c.name.length)) + 4;
  const lines = [`Usage: xrunhunt ${group.name} <command> [options]`, '', group.summary, ''];
  if (group.description) lines.push(group.description.trim(), '');
  lines.push('Commands:');
  for (const c of group.subcommands) lines.push(`  ${c.name.padEnd(width)}${c.summary}`);
  lines.push('', `Run "xrunhunt ${group.name} <command> --help" for its options.`);
  return lines.join('\n') + '\n';
}
