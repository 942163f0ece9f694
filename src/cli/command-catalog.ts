// The commands this build has: one file per command in ./commands/ (default export: a command
// or a group of subcommands), listed by file name and imported only when needed, so
// `analyze` never loads the FFI. main, `completion` and `man` all read the same catalogue.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AnyCommand, CommandGroup } from './command.js';

export type CatalogEntry = AnyCommand | CommandGroup;

const COMMANDS_DIR = new URL('./commands/', import.meta.url);

/** Whether an entry has subcommands (`debug status`, `lab build`). */
export const isGroup = (e: CatalogEntry): e is CommandGroup => 'subcommands' in e;

/** The command names available in this build (file names in ./commands/), sorted. */
export function commandNames(): string[] {
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

/** Imports one command file (.ts from the sources, .js from dist). */
export async function loadEntry(name: string): Promise<CatalogEntry> {
  const ext = fileURLToPath(import.meta.url).endsWith('.ts') ? 'ts' : 'js';
  const mod = (await import(new URL(`${name}.${ext}`, COMMANDS_DIR).href)) as {
    default: CatalogEntry;
  };
  return mod.default;
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
