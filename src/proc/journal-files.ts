// Where journals live and who they belong to. One folder, one file per owner:
// `manual.json` holds originals of changes meant to stay (`debug on` / `debug off`) until
// `debug restore`; `session-<pid>.json` holds those of a run that restores on exit. A session
// file whose process is dead was left by a killed run and is restored at the next start.
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import type { JournalFs, JournalOwner } from './journal.js';
import {
  SettingsJournal,
  atFolder,
  isOwnerAlive,
  openTrusted,
  readJournalFile,
  readProcessStartTicks,
} from './journal.js';
import type { SettingFileIo } from './setting-file.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { judgeOwnership, lstatFacts, runningUid } from './journal-trust.js';

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

export interface FindJournalsDeps {
  fs?: JournalFs;
  io?: SettingFileIo;
  startTicksOf?: (pid: number) => number | undefined;
  /** The user journals must belong to (default: the effective uid). */
  uid?: number;
}

/** Why a journal folder must not be read (owned by someone else, writable by others), or null. */
export function checkJournalFolderTrust(
  dir: string,
  uid: number,
  fs: Pick<typeof nodeFs, 'lstatSync'> = nodeFs,
): string | null {
  try {
    const why = judgeOwnership(lstatFacts(dir, fs), 'directory', uid);
    return why === null
      ? null
      : `refusing the journal folder ${quoteUntrusted(dir)}: ${why}; remove it if you did not create it, or fix its owner and mode (chmod go-w) if you did`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return `cannot examine the journal folder ${quoteUntrusted(dir)}: ${(err as Error).message}`;
  }
}

/** The names findJournals reads: `manual.json`, `session-<pid>.json`, `session-<pid>-<part>.json`. */
const JOURNAL_NAME_RE = /^(manual|session-\d+(?:-[a-z]+)?)\.json$/;

/**
 * Lists the journals in `dir` (unreadable or untrusted ones as errors); no folder means none.
 * A folder that is not the running user's, or that others can write, yields one error and no
 * journal: nothing in it can be trusted.
 */
export function findJournals(
  dir: string,
  deps: FindJournalsDeps = {},
): { journals: FoundJournal[]; errors: string[] } {
  const fs = deps.fs ?? nodeFs;
  const uid = deps.uid ?? runningUid();
  const journals: FoundJournal[] = [];
  const errors: string[] = [];
  // The folder is opened once (no link), judged by its descriptor and listed from it.
  let names: string[];
  let dirFd: number | undefined;
  try {
    dirFd = openTrusted(dir, 'directory', uid, fs);
  } catch (err) {
    return {
      journals,
      errors: [
        (err as { untrusted?: boolean }).untrusted
          ? `refusing the journal folder ${quoteUntrusted(dir)}: ${(err as Error).message}; remove it if you did not create it, or fix its owner and mode (chmod go-w) if you did`
          : `cannot examine the journal folder ${quoteUntrusted(dir)}: ${(err as Error).message}`,
      ],
    };
  }
  if (dirFd === undefined) return { journals, errors };
  try {
    names = fs.readdirSync(atFolder(dirFd, '')) as string[];
  } catch (err) {
    errors.push(`cannot list the journal folder ${quoteUntrusted(dir)}: ${(err as Error).message}`);
    return { journals, errors };
  } finally {
    fs.closeSync(dirFd);
  }
  for (const name of names.filter((n) => JOURNAL_NAME_RE.test(n)).sort()) {
    const file = join(dir, name);
    try {
      const doc = readJournalFile(file, fs, uid);
      if (!doc) continue;
      const journal = SettingsJournal.fromDocument(file, doc, deps);
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

/** findJournals over several folders (a folder listed twice is read once). */
export function findJournalsIn(
  dirs: readonly string[],
  deps: FindJournalsDeps = {},
): { journals: FoundJournal[]; errors: string[] } {
  const journals: FoundJournal[] = [];
  const errors: string[] = [];
  for (const dir of [...new Set(dirs)]) {
    const found = findJournals(dir, deps);
    journals.push(...found.journals);
    errors.push(...found.errors);
  }
  return { journals, errors };
}

/** `manual.json.tmp-1234` → 1234: the temporary name writeFileDurably gives a journal. */
export function tempJournalPid(name: string): number | undefined {
  const m = /^(?:manual|session-\d+(?:-[a-z]+)?)\.json\.tmp-(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/**
 * Deletes temporary journal files whose writer is dead (a kill -9 between write and rename).
 * Never restores from them: a setting is changed only after its journal is renamed into
 * place, so a temporary file names at most a change that was never made; the renamed journal
 * beside it (if any) is the complete record. Returns the files removed.
 */
export function removeStaleTempJournals(
  dir: string,
  deps: {
    fs?: Pick<typeof nodeFs, 'readdirSync' | 'unlinkSync' | 'lstatSync'>;
    isPidAlive?: (pid: number) => boolean;
    uid?: number;
  } = {},
): string[] {
  const fs = deps.fs ?? nodeFs;
  const uid = deps.uid ?? runningUid();
  const alive = deps.isPidAlive ?? ((pid: number) => readProcessStartTicks(pid) !== undefined);
  if (checkJournalFolderTrust(dir, uid, fs) !== null) return [];
  let names: string[];
  try {
    names = fs.readdirSync(dir) as string[];
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = tempJournalPid(name);
    if (pid === undefined || pid === process.pid || alive(pid)) continue;
    const file = join(dir, name);
    try {
      const facts = lstatFacts(file, fs);
      if (facts.kind !== 'file' || facts.uid !== uid) continue;
      fs.unlinkSync(file);
      removed.push(file);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}
