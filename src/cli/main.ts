// argv → command → exit code. Each file in ./commands/ default-exports one command (or a
// group of subcommands) named like the file; only the command that runs is imported, so
// `analyze` never loads the FFI. Exit codes: 0 clean, 1 tool or usage error, 2 xruns /
// threshold hit / a diagnosis is blocked.
import { fileURLToPath } from 'node:url';
import { toolVersion } from '../tool-version.js';
import type { AnyCommand, CliIo } from './command.js';
import { parseCommandArgs, renderCommandHelp, renderGroupHelp } from './command.js';
import {
  commandNames,
  isGroup,
  loadAllEntries,
  loadEntry,
  subcommandWord,
} from './command-catalog.js';
import { didYouMean } from './did-you-mean.js';
import { quietStderr } from './quiet-stream.js';
import { errorMessage, InterruptedError, isXrunhuntError, UsageError } from '../errors.js';
import { quoteUntrusted, terminalSafeMessage } from '../text/untrusted-text.js';

async function renderTopHelp(): Promise<string> {
  const entries = await loadAllEntries();
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
    'Every command takes --help (units for every duration and size), -q/--quiet (no progress',
    'on stderr), --debug (diagnostics, stack traces of internal errors) and --json where it',
    'produces a report. Exit codes: 0 clean, 1 error, 2 xruns found or threshold hit.',
    'xrunhunt --version; shell completion: xrunhunt completion bash|zsh; manual: xrunhunt man.',
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

/**
 * Prints an error the way users should see it: one message and a hint for known errors; for
 * bugs, the message and (with --debug) the stack trace. With --debug, causes are shown too.
 */
export function reportError(io: CliIo, err: unknown, debug = false): number {
  if (err instanceof InterruptedError) {
    io.stderr.write(`xrunhunt: ${terminalSafeMessage(err.message)}\n`);
    return 130;
  }
  if (isXrunhuntError(err)) {
    io.stderr.write(`xrunhunt: error: ${terminalSafeMessage(err.message)}\n`);
    if (err.hint) io.stderr.write(`  hint: ${terminalSafeMessage(err.hint)}\n`);
    if (debug) {
      io.stderr.write(`xrunhunt: debug: ${err.stack ?? err.message}\n`);
      if (err.cause !== undefined)
        io.stderr.write(`xrunhunt: debug: caused by ${describeCause(err.cause)}\n`);
    }
    return 1;
  }
  io.stderr.write(
    `xrunhunt: internal error (this is a bug, please report it): ${terminalSafeMessage(errorMessage(err))}\n`,
  );
  if (debug) {
    io.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    if (err instanceof Error && err.cause !== undefined)
      io.stderr.write(`caused by ${describeCause(err.cause)}\n`);
  } else {
    io.stderr.write(
      '  hint: run the same command again with --debug for the stack trace, and include it in the report\n',
    );
  }
  return 1;
}

function describeCause(cause: unknown): string {
  return cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
}

/** Global flags given before the command name (`xrunhunt -q analyze …`) are the command's. */
function splitGlobalFlags(argv: string[]): { flags: string[]; words: string[] } {
  const flags: string[] = [];
  let i = 0;
  while (i < argv.length && ['-q', '--quiet', '--debug'].includes(argv[i]!)) flags.push(argv[i++]!);
  return { flags, words: argv.slice(i) };
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
  const ownWords = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  let debug = ownWords.includes('--debug');
  try {
    const { flags, words } = splitGlobalFlags(argv);
    const [first, ...rest] = words;
    const dd = rest.indexOf('--');
    const args =
      dd === -1 ? [...rest, ...flags] : [...rest.slice(0, dd), ...flags, ...rest.slice(dd)];
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      io.stdout.write(await renderTopHelp());
      return first === undefined ? 1 : 0;
    }
    if (first === '--version' || first === '-V') {
      io.stdout.write(`xrunhunt ${toolVersion()}\n`);
      return 0;
    }
    const names = commandNames();
    if (!names.includes(first)) {
      throw new UsageError(
        `unknown command "${quoteUntrusted(first, 60)}"${didYouMean(first, names)}; run "xrunhunt --help" for the list`,
      );
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
      const found = entry.subcommands.find((c) => subcommandWord(c) === sub);
      if (!found) {
        const subs = entry.subcommands.map(subcommandWord);
        throw new UsageError(
          `unknown ${entry.name} command "${quoteUntrusted(sub, 60)}"${didYouMean(sub, subs)}; expected one of: ${subs.join(', ')}`,
        );
      }
      command = found;
      commandArgs = subArgs;
    } else {
      command = entry;
    }
    const parsed = parseCommandArgs(command, commandArgs);
    debug = parsed.debug;
    if (parsed.help) {
      io.stdout.write(renderCommandHelp(command));
      return 0;
    }
    const stderr = parsed.quiet ? quietStderr(io.stderr) : io.stderr;
    const commandIo: CliIo = { ...io, stderr };
    if (!parsed.quiet) {
      for (const d of parsed.deprecations) io.stderr.write(`xrunhunt: note: ${d}\n`);
    }
    if (debug) {
      io.stderr.write(
        `xrunhunt: debug: xrunhunt ${toolVersion()}, node ${process.version}, ${process.platform}-${process.arch}, pid ${process.pid}, uid ${process.getuid?.() ?? 'n/a'}\n` +
          `xrunhunt: debug: command "${command.name}", options ${JSON.stringify(parsed.values)}, arguments ${JSON.stringify(parsed.positionals)}\n`,
      );
    }
    for (const s of sigs) process.on(s, onSignal);
    const started = Date.now();
    try {
      return await command.run({
        io: commandIo,
        values: parsed.values,
        positionals: parsed.positionals,
        rest: parsed.rest,
        signal: controller.signal,
        quiet: parsed.quiet,
        debug,
      });
    } finally {
      if (stderr !== io.stderr) await new Promise<void>((done) => stderr.end(done));
      if (debug)
        io.stderr.write(`xrunhunt: debug: "${command.name}" ran ${Date.now() - started} ms\n`);
    }
  } catch (err) {
    return reportError(io, err, debug);
  } finally {
    for (const s of sigs) process.off(s, onSignal);
  }
}

const invokedDirectly =
  process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  process.exitCode = await main(process.argv.slice(2));
}
