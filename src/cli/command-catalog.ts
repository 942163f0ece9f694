// The commands this build has: one file per command in ./commands/ (default export: a command
// or a group of subcommands), listed by file name and imported only when needed, so
// `analyze` never loads the FFI. main, `completion` and `man` all read the same catalogue.
import type { AnyCommand, CommandGroup } from './command.js';

export type CatalogEntry = AnyCommand | CommandGroup;

type CommandModule = { default: CatalogEntry };

// One loader per file in ./commands/ (a test keeps the two lists equal). Literal specifiers,
// so a bundler sees every command and keeps each one lazy; tsx maps them to the .ts sources.
const COMMAND_LOADERS: Readonly<Record<string, () => Promise<CommandModule>>> = {
  aggregate: () => import('./commands/aggregate.js'),
  analyze: () => import('./commands/analyze.js'),
  compare: () => import('./commands/compare.js'),
  completion: () => import('./commands/completion.js'),
  debug: () => import('./commands/debug.js'),
  doctor: () => import('./commands/doctor.js'),
  lab: () => import('./commands/lab.js'),
  load: () => import('./commands/load.js'),
  man: () => import('./commands/man.js'),
  play: () => import('./commands/play.js'),
  serve: () => import('./commands/serve.js'),
  session: () => import('./commands/session.js'),
  stress: () => import('./commands/stress.js'),
  submit: () => import('./commands/submit.js'),
  try: () => import('./commands/try.js'),
  watch: () => import('./commands/watch.js'),
  web: () => import('./commands/web.js'),
};

/** Whether an entry has subcommands (`debug status`, `lab build`). */
export const isGroup = (e: CatalogEntry): e is CommandGroup => 'subcommands' in e;

/** The command names available in this build (one per file in ./commands/), sorted. */
export function commandNames(): string[] {
  return Object.keys(COMMAND_LOADERS).sort();
}

/** Imports one command's file (the sources through tsx, or dist). */
export async function loadEntry(name: string): Promise<CatalogEntry> {
  const load = Object.hasOwn(COMMAND_LOADERS, name) ? COMMAND_LOADERS[name] : undefined;
  if (!load) throw new Error(`no command file for ${name}`);
  return (await load()).default;
}

/** Every command, for the top-level help, shell completion and the man page. */
export async function loadAllEntries(): Promise<CatalogEntry[]> {
  return Promise.all(commandNames().map(loadEntry));
}

/** The last word of a subcommand's name (`lab build` → `build`). */
export function subcommandWord(c: AnyCommand): string {
  return c.name.split(' ').at(-1) ?? c.name;
}

/** One runnable command with the words that name it (`['lab', 'build']`). */
export interface CatalogCommand {
  words: string[];
  command: AnyCommand;
  /** The group it belongs to, for subcommands. */
  group?: CommandGroup;
}

/** Every runnable command, subcommands spelled out: what completion and the man page list. */
export function flattenCatalog(entries: readonly CatalogEntry[]): CatalogCommand[] {
  const out: CatalogCommand[] = [];
  for (const e of entries) {
    if (isGroup(e)) {
      for (const c of e.subcommands)
        out.push({ words: [e.name, subcommandWord(c)], command: c, group: e });
    } else out.push({ words: [e.name], command: e });
  }
  return out;
}
