// The manual page xrunhunt(1), generated from the same specs as --help and completion:
// every command with its usage, description, options (units, allowed values, defaults,
// deprecated spellings) and examples. Pure: catalogue in, roff (man macros) out.
import { COMMON_OPTIONS, type OptionSpec, type OptionSpecs } from './command.js';
import { flattenCatalog, type CatalogEntry } from './command-catalog.js';

/** Escapes text for roff: backslashes, dashes, non-ASCII, a leading . or ' (a request). */
export function roffText(text: string): string {
  return (
    text
      .replace(/\\/g, '\\e')
      .replace(/-/g, '\\-')
      // Non-ASCII (×, µ, –, ’) as groff named Unicode escapes: no input-encoding guesswork.
      .replace(
        /[^\n\t -~]/gu,
        (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`,
      )
      .split('\n')
      .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
      .join('\n')
  );
}

function optionItem(name: string, spec: OptionSpec): string[] {
  const flags = `${spec.short ? `\\fB\\-${spec.short}\\fR, ` : ''}\\fB\\-\\-${roffText(name)}\\fR`;
  const value = spec.type === 'string' ? ` \\fI${roffText(spec.valueName ?? 'VALUE')}\\fR` : '';
  const extra: string[] = [];
  if (spec.choices) extra.push(`One of: ${spec.choices.join(', ')}.`);
  if (spec.type === 'string' && spec.default !== undefined)
    extra.push(`Default: ${String(spec.default)}.`);
  if (spec.multiple) extra.push('May be repeated.');
  if (spec.deprecatedAliases?.length) {
    extra.push(
      `Old spelling ${spec.deprecatedAliases.map((a) => `--${a}`).join(', ')} still accepted (deprecated).`,
    );
  }
  return ['.TP', `${flags}${value}`, roffText([spec.description, ...extra].join(' '))];
}

function paragraphs(text: string): string[] {
  return text
    .trim()
    .split(/\n\s*\n/)
    .flatMap((p) => ['.PP', roffText(p.replace(/\s*\n\s*/g, ' '))]);
}

/** The page's date from SOURCE_DATE_EPOCH (reproducible builds), else none. */
export function manPageDate(env: NodeJS.ProcessEnv): string {
  const epoch = env['SOURCE_DATE_EPOCH'];
  return epoch && /^\d+$/.test(epoch)
    ? new Date(Number(epoch) * 1000).toISOString().slice(0, 10)
    : '';
}

/** Renders xrunhunt(1). `date` (YYYY-MM-DD) is optional so builds can be reproducible. */
export function renderManPage(
  entries: readonly CatalogEntry[],
  version: string,
  date = '',
): string {
  const out = [
    `.TH XRUNHUNT 1 "${date}" "xrunhunt ${roffText(version)}" "User Commands"`,
    '.SH NAME',
    'xrunhunt \\- find the kernel code that makes Linux audio drop out',
    '.SH SYNOPSIS',
    '.B xrunhunt',
    '.I command',
    '[\\fIoptions\\fR] [\\fIarguments\\fR]',
    '.br',
    '.B xrunhunt \\-\\-version',
    '.SH DESCRIPTION',
    ...paragraphs(`xrunhunt turns on the kernel's XRUN reporting (xrun_debug, or a kprobe on stock kernels), plays audio through libasound at tiny buffer sizes while it generates the load that breaks audio, captures the stack dump the kernel prints at each underrun, and ranks the kernel code that was running when the period interrupt came too late.

Durations are written 500ms, 10s, 2m; sizes 64M, 2G; periods and buffers in frames. A string option takes the next word as its value, also when it starts with a dash followed by a digit (--top -1 is the value -1, refused by its range check); write --opt=VALUE for other values that start with a dash.`),
    '.SH OPTIONS FOR EVERY COMMAND',
    ...Object.entries(COMMON_OPTIONS as OptionSpecs).flatMap(([n, s]) => optionItem(n, s)),
    '.PP',
    'They may also be given before the command name (\\fBxrunhunt \\-q aggregate\\fR ...).',
    '.SH COMMANDS',
  ];
  for (const { words, command } of flattenCatalog(entries)) {
    out.push(`.SS "${roffText(words.join(' '))}"`, `\\fBxrunhunt\\fR ${roffText(command.usage)}`);
    out.push('.PP', roffText(command.summary));
    if (command.description) out.push(...paragraphs(command.description));
    const opts = Object.entries(command.options as OptionSpecs);
    if (opts.length > 0) {
      out.push('.PP', 'Options:', '.RS');
      for (const [n, s] of opts) out.push(...optionItem(n, s));
      out.push('.RE');
    }
    if (command.examples?.length) {
      out.push('.PP', 'Examples:', '.RS', '.nf', ...command.examples.map(roffText), '.fi', '.RE');
    }
  }
  out.push(
    '.SH EXIT STATUS',
    '.TP',
    '.B 0',
    'clean: no xruns, nothing found, or the command did what was asked.',
    '.TP',
    '.B 1',
    'a usage error or a tool error (the message says what was expected, what was found, what to do).',
    '.TP',
    '.B 2',
    'xruns found, a threshold was hit, or a diagnosis is blocked.',
    '.TP',
    '.B 130',
    'stopped by a signal (Ctrl\\-C); xrun_debug and tracefs were restored.',
    '.SH ENVIRONMENT',
    '.TP',
    '.B XDG_DATA_HOME',
    'where the fleet store lives (default ~/.local/share/xrunhunt/fleet.db).',
    '.TP',
    '.B XDG_STATE_HOME',
    'the machine id and the xrun_debug restore journal (default ~/.local/state/xrunhunt/).',
    '.SH SEE ALSO',
    '.BR aplay (1),',
    '.BR cyclictest (8),',
    '.BR rtla (1),',
    '.BR dmesg (1)',
    '',
  );
  return out.join('\n');
}
