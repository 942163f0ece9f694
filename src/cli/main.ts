// argv → command → exit code. Each file in ./commands/ default-exports one command (or a
// group of subcommands) named like the file; only the command that runs is imported, so
// `analyze` never loads the FFI. Exit codes: 0 clean, 1 tool or usage error, 2 xruns /
// threshold hit / a diagnosis is blocked.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { AnyCommand, CliIo, CommandGroup } from './command.js';
import { parseCommandArgs, renderCommandHelp, renderGroupHelp } from './command.js';
import { UsageError, isXrunhuntError, InterruptedError } from '../errors.js';

type Entry = AnyCommand | CommandGroup;

const COMMANDS_DIR = new URL('./commands/', import.meta.url);

/** Lists the command names available in this build (file names in ./commands/). */
function commandNames(): string[] {
  let files: string[];
  try {
    files = readdirSync(fileURLToPath(COMMANDS_DIR));
  } catch {
    return [];
  }
  return files
    .filter((f) => /^[a-z][a-z-]*\.(js|ts|tsx)$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.replace(/\.(js|ts|tsx)$/, ''))
    .filter((n, i, all) => all.indexOf(n) === i)
    .sort();
}

async function loadEntry(name: string): Promise<Entry> {
  const ext = fileURLToPath(import.meta.url).endsWith('.ts') ? 'ts' : 'js';
  const mod = (await import(new URL(`${name}.${ext}`, COMMANDS_DIR).href)) as { default: Entry };
  return mod.default;
}

const isGroup = (e: Entry): e is CommandGroup => 'subcommands' in e;

/** Reads the package version for `--version` and for bundles. */
export function toolVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('../../package.json') as { version: string }).version;
}

async function renderTopHelp(): Promise<string> {
  const entries = await Promise.all(commandNames().map(loadEntry));
  const width = Math.max(8, ...entries.map((e) => e.name.length)) + 4;
  return [
    'Usage: xrunhunt <command> [options]',
    '',
    "Find the kernel code that makes Linux audio drop out: turn on the kernel's XRUN",
    'reporting, play audio at tiny buffer sizes under load, capture the stack dumps the',
    'kernel prints at each underrun, and rank the offending kernel code.',
    '',
    'Commands:',
    ...entries.map((e) => `  ${e.name.padEnd(width)}${e.summary}`),
    '',
    'Every command takes --help (units for every duration and size) and --json where it',
    'produces a report. Exit codes: 0 clean, 1 error, 2 xruns found or threshold hit.',
    '',
  ].join('\n');
}

/** The process's real streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

/** Prints an error the way users should see it: one message, a hint, no stack for known errors. */
export function reportError(io: CliIo, err: unknown): number {
  if (err instanceof InterruptedError) {
    io.stderr.write(`xrunhunt: ${err.message}\n`);
    return 130;
  }
  if (isXrunhuntError(err)) {
    io.stderr.write(`xrunhunt: error: ${err.message}\n`);
    if (err.hint) io.stderr.write(`  hint: ${err.hint}\n`);
    return 1;
  }
  io.stderr.write(`xrunhunt: internal error (this is a bug, please report it):\n`);
  io.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}

/** Runs one command line; returns the exit code instead of exiting (callable from tests). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals === 1) {
      io.stderr.write(
        `\nxrunhunt: ${sig} received, stopping and restoring (send again to force)\n`,
      );
      controller.abort(new InterruptedError(sig));
    } else {
      process.exit(130);
    }
  };
  const sigs: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  try {
    const [first, ...args] = argv;
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      io.stdout.write(await renderTopHelp());
      return first === undefined ? 1 : 0;
    }
    if (first === '--version' || first === '-V') {
      io.stdout.write(`${toolVersion()}\n`);
      return 0;
    }
    if (!commandNames().includes(first)) {
      throw new UsageError(`unknown command "${first}"; run "xrunhunt --help" for the list`);
    }
    const entry = await loadEntry(first);
    let command: AnyCommand;
    let commandArgs = args;
    if (isGroup(entry)) {
      const [sub, ...subArgs] = args;
      if (sub === undefined || sub === '--help' || sub === '-h') {
        io.stdout.write(renderGroupHelp(entry));
        return sub === undefined ? 1 : 0;
      }
      const found = entry.subcommands.find((c) => c.name.split(' ').at(-1) === sub);
      if (!found) {
        const names = entry.subcommands.map((c) => c.name.split(' ').at(-1)).join(', ');
        throw new UsageError(`unknown ${entry.name} command "${sub}"; expected one of: ${names}`);
      }
      command = found;
      commandArgs = subArgs;
    } else {
      command = entry;
    }
    const parsed = parseCommandArgs(command, commandArgs);
    if (parsed.help) {
      io.stdout.write(renderCommandHelp(command));
      return 0;
    }
    for (const s of sigs) process.on(s, onSignal);
    return await command.run({
      io,
      values: parsed.values,
      positionals: parsed.positionals,
      rest: parsed.rest,
      signal: controller.signal,
    });
  } catch (err) {
    return reportError(io, err);
  } finally {
    for (const s of sigs) process.off(s, onSignal);
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  process.exitCode = await main(process.argv.slice(2));
}
