// Shell completion scripts generated from the option specs, so they can never drift from what
// the parser accepts: command and subcommand names, every option (long and short), the
// allowed values of options that have them, and file/folder names where a value is a path.
// Pure: the command catalogue in, script text out.
import { COMMON_OPTIONS, type OptionSpec, type OptionSpecs } from './command.js';
import { isGroup, type CatalogEntry, flattenCatalog, subcommandWord } from './command-catalog.js';

export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

function allOptions(options: OptionSpecs): [string, OptionSpec][] {
  return Object.entries({ ...options, ...COMMON_OPTIONS });
}

/** What a value placeholder asks the shell to complete: a folder, a file, or nothing known. */
export function valueCompletion(spec: OptionSpec): 'dir' | 'file' | 'none' {
  const v = spec.valueName ?? '';
  if (/^DIR$/.test(v)) return 'dir';
  if (/^(FILE|PATH)$/.test(v)) return 'file';
  return 'none';
}

// Words in a bash `compgen -W` list and case patterns are our own option names and choices
// ([a-z0-9_:-]); anything else would be a programming error in a spec.
function shellWord(w: string): string {
  if (!/^[A-Za-z0-9_.:+-]+$/.test(w))
    throw new Error(`completion: unsafe word "${w}" in an option spec`);
  return w;
}

/** Renders the bash completion script (`source <(xrunhunt completion bash)`). */
export function renderBashCompletion(entries: readonly CatalogEntry[]): string {
  const top = entries.map((e) => shellWord(e.name));
  const lines = [
    '# bash completion for xrunhunt, generated from its option specs (xrunhunt completion bash)',
    '_xrunhunt() {',
    '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}',
    '  local key=${COMP_WORDS[1]}',
    '  if (( COMP_CWORD == 1 )); then',
    `    COMPREPLY=($(compgen -W "${top.join(' ')} --help --version" -- "$cur")); return`,
    '  fi',
    '  case $key in',
  ];
  for (const e of entries) {
    if (!isGroup(e)) continue;
    const subs = e.subcommands.map((c) => shellWord(subcommandWord(c)));
    lines.push(
      `    ${shellWord(e.name)})`,
      `      if (( COMP_CWORD == 2 )); then COMPREPLY=($(compgen -W "${subs.join(' ')} --help" -- "$cur")); return; fi`,
      '      key="$key ${COMP_WORDS[2]}" ;;',
    );
  }
  lines.push('  esac', '  local opts=""', '  case $key in');
  for (const { words, command } of flattenCatalog(entries)) {
    const opts = allOptions(command.options as OptionSpecs);
    const flags = opts.flatMap(([n, s]) => [
      `--${shellWord(n)}`,
      ...(s.short ? [`-${shellWord(s.short)}`] : []),
    ]);
    lines.push(
      `    "${words.join(' ')}")`,
      `      opts="${flags.join(' ')}"`,
      '      case $prev in',
    );
    for (const [n, s] of opts) {
      if (s.type !== 'string') continue;
      const pat = [`--${n}`, ...(s.short ? [`-${s.short}`] : [])].join('|');
      const kind = valueCompletion(s);
      if (s.choices) {
        lines.push(
          `        ${pat}) COMPREPLY=($(compgen -W "${s.choices.map(shellWord).join(' ')}" -- "$cur")); return ;;`,
        );
      } else if (kind === 'dir') {
        lines.push(`        ${pat}) COMPREPLY=($(compgen -d -- "$cur")); return ;;`);
      } else if (kind === 'file') {
        lines.push(`        ${pat}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`);
      } else {
        lines.push(`        ${pat}) COMPREPLY=(); return ;;`);
      }
    }
    lines.push('      esac ;;');
  }
  lines.push(
    '  esac',
    '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
    '  else COMPREPLY=($(compgen -f -- "$cur")); fi',
    '}',
    'complete -o filenames -o bashdefault -F _xrunhunt xrunhunt',
    '',
  );
  return lines.join('\n');
}

// Text inside a zsh single-quoted _arguments spec: no quote, and none of []: which the spec
// syntax gives meaning.
function zshText(text: string): string {
  return text
    .replace(/'/g, '’')
    .replace(/[[\]:\\]/g, (c) => (c === ':' ? ' -' : c === '\\' ? '/' : c === '[' ? '(' : ')'));
}

function zshOptionSpecs(options: OptionSpecs): string[] {
  return allOptions(options).map(([n, s]) => {
    const desc = zshText(s.description);
    let value = '';
    if (s.type === 'string') {
      const label = zshText(s.valueName ?? 'VALUE');
      const kind = valueCompletion(s);
      const action = s.choices
        ? `(${s.choices.map(shellWord).join(' ')})`
        : kind === 'dir'
          ? '_files -/'
          : kind === 'file'
            ? '_files'
            : ' ';
      value = `:${label}:${action}`;
    }
    const rep = s.multiple ? '*' : '';
    if (s.short) {
      return `'${rep}(-${s.short} --${n})'{-${s.short},--${n}}'[${desc}]${value}'`;
    }
    return `'${rep}--${n}[${desc}]${value}'`;
  });
}

/** Renders the zsh completion script (`source <(xrunhunt completion zsh)`, or put in $fpath). */
export function renderZshCompletion(entries: readonly CatalogEntry[]): string {
  const lines = [
    '#compdef xrunhunt',
    '# zsh completion for xrunhunt, generated from its option specs (xrunhunt completion zsh)',
    '_xrunhunt() {',
    '  local -a commands subs',
    '  commands=(',
    ...entries.map((e) => `    '${shellWord(e.name)}:${zshText(e.summary)}'`),
    '  )',
    '  if (( CURRENT == 2 )); then _describe -t commands command commands; return; fi',
    '  local key=$words[2]',
    '  shift words; (( CURRENT-- ))',
    '  case $key in',
  ];
  for (const e of entries) {
    if (!isGroup(e)) continue;
    lines.push(
      `    ${shellWord(e.name)})`,
      '      subs=(',
      ...e.subcommands.map(
        (c) => `        '${shellWord(subcommandWord(c))}:${zshText(c.summary)}'`,
      ),
      '      )',
      `      if (( CURRENT == 2 )); then _describe -t commands '${e.name} command' subs; return; fi`,
      '      key="$key $words[2]"; shift words; (( CURRENT-- )) ;;',
    );
  }
  lines.push('  esac', '  case $key in');
  for (const { words, command } of flattenCatalog(entries)) {
    lines.push(
      `    '${words.join(' ')}')`,
      `      _arguments -s -S \\`,
      ...zshOptionSpecs(command.options as OptionSpecs).map((s) => `        ${s} \\`),
      `        '*:file:_files' ;;`,
    );
  }
  lines.push(
    '  esac',
    '}',
    'if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _xrunhunt "$@"; else compdef _xrunhunt xrunhunt; fi',
    '',
  );
  return lines.join('\n');
}
