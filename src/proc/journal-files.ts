// Where journals live and who they belong to. One folder, one file per owner:
// `manual.json` holds originals of changes meant to stay (`debug on` / `debug off`) until
// `debug restore`; `session-<pid>.json` holds those of a run that restores on exit. A session
// file whose process is dead was left by a killed run and is restored at the next start.
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import type { JournalFs, JournalOwner } from './journal.js';
import {
  SettingsJournal,
  defaultJournalDir,
  isOwnerAlive,
  readProcessStartTicks,
} from './journal.js';
import type { SettingFileIo } from './setting-file.js';

/** The journal of lasting changes (`debug on` / `debug off`). */
export function manualJournalFile(dir: string): string {
  return join(dir, 'manual.json');
}

/** The journal of one temporary run. */
export function sessionJournalFile(dir: string, pid: number): string {
  return join(dir, `session-${pid}.json`);
}

/** The journal of one part of a temporary run that keeps its own file (`session-<pid>-kprobe.json`). */
export function sessionPartJournalFile(dir: string, pid: number, part: string): string {
  return join(dir, `session-${pid}-${part}.json`);
}

/** Describes this process as a journal owner. */
export function currentOwner(
  command: string,
  temporary: boolean,
  toolVersion: string,
): JournalOwner {
  return {
    pid: process.pid,
    startTicks: readProcessStartTicks(process.pid),
    startedAt: new Date().toISOString(),
    toolVersion,
    command,
    temporary,
  };
}

export interface FoundJournal {
  file: string;
  journal: SettingsJournal;
  manual: boolean;
  /** Whether the owning process still runs (a session in progress). */
  alive: boolean;
}

/** Lists the journals in `dir` (unreadable ones as errors); no journal folder means none. */
export function findJournals(
  dir: string,
  deps: {
    fs?: JournalFs;
    io?: SettingFileIo;
    startTicksOf?: (pid: number) => number | undefined;
  } = {},
): { journals: FoundJournal[]; errors: string[] } {
  const fs = deps.fs ?? nodeFs;
  const journals: FoundJournal[] = [];
  const errors: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir) as string[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      errors.push(`cannot list the journal folder ${dir}: ${(err as Error).message}`);
    return { journals, errors };
  }
  for (const name of names
    .filter((n) => /^(manual|session-\d+(?:-[a-z]+)?)\.json$/.test(n))
    .sort()) {
    const file = join(dir, name);
    try {
      const journal = SettingsJournal.load(file, deps);
      if (!journal) continue;
      const manual = name === 'manual.json';
      journals.push({
        file,
        journal,
        manual,
        alive:
          !manual &&
          journal.owner.pid !== process.pid &&
          isOwnerAlive(journal.owner, deps.startTicksOf),
      });
    } catch (err) {
      errors.push((err as Error).message);
    }
  }
  return { journals, errors };
}

/** Where root's journal goes when /var/lib is read-only (live systems, the lab guest): a tmpfs. */
export const ROOT_FALLBACK_JOURNAL_DIR = '/run/xrunhunt';

/**
 * defaultJournalDir, except that root on a read-only /var/lib falls back to /run/xrunhunt.
 * Kernel settings do not survive a reboot either, so a tmpfs journal still covers kill -9.
 */
export function resolveJournalDir(
  env: NodeJS.ProcessEnv,
  uid: number,
  home: string,
  writable: (dir: string) => boolean = (dir) => {
    try {
      nodeFs.accessSync(dir, nodeFs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  },
): string {
  const dir = defaultJournalDir(env, uid, home);
  if (uid !== 0 || (env['XDG_STATE_HOME'] ?? '') !== '') return dir;
  if (nodeFs.existsSync(dir) ? writable(dir) : writable(dirname(dir))) return dir;
  return ROOT_FALLBACK_JOURNAL_DIR;
}
