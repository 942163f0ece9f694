// The one restore of journals read from disk — by `debug restore`, and by the pending restore
// every changing command runs first. Under the settings lock (nothing else changes settings
// meanwhile): stale temporary journal files go, then journals are restored in the order that
// unwinds layered changes (killed runs newest first, then the lasting `debug on/off` they were
// layered on), each only after journal-trust.ts has checked every entry; a refused journal is
// left untouched and reported with the reasons.
import type { RestoreReport } from './journal.js';
import type { FindJournalsDeps, FoundJournal } from './journal-files.js';
import { findJournalsIn, removeStaleTempJournals } from './journal-files.js';
import type { SettingRoots } from './journal-trust.js';
import { judgeJournalEntries } from './journal-trust.js';
import type { SettingsLockOptions } from './settings-lock.js';
import { acquireSettingsLockWaiting } from './settings-lock.js';

/** Journals left by dead sessions, oldest first. */
export function deadSessionJournals(journals: FoundJournal[]): FoundJournal[] {
  return journals
    .filter((j) => !j.manual && !j.alive)
    .sort((a, b) => a.journal.owner.startedAt.localeCompare(b.journal.owner.startedAt));
}

/**
 * The order journals are restored in: dead sessions newest first (a later run journaled the
 * values an earlier killed run had set), then, when asked, the lasting (manual) journals they
 * were layered on. Live runs' journals are never in it: they restore their own.
 */
export function restoreOrder(journals: FoundJournal[], includeManual: boolean): FoundJournal[] {
  return [
    ...deadSessionJournals(journals).reverse(),
    ...(includeManual ? journals.filter((j) => j.manual) : []),
  ];
}

/** A journal that was not restored because an entry failed the trust check. */
export interface RefusedJournal {
  file: string;
  command: string;
  reasons: string[];
}

export interface RestoreJournalsOptions {
  roots: SettingRoots;
  /** Also restore the lasting (manual) journals: `debug restore` does, the pending restore does not. */
  includeManual: boolean;
  /** Shown to a run that finds the lock taken. */
  command: string;
  /** Asked before each journal is restored (a terminal prompt); false leaves it as it is. */
  confirm?: (journal: FoundJournal) => Promise<boolean>;
  deps?: FindJournalsDeps & { isPidAlive?: (pid: number) => boolean };
  lock?: SettingsLockOptions;
  /** How long to wait for a lock another run holds before giving up (default 0: refuse at once). */
  lockWaitMs?: number;
}

export interface RestoreJournalsOutcome {
  restored: { file: string; command: string; report: RestoreReport }[];
  refused: RefusedJournal[];
  declined: string[];
  /** Journals of runs still going: left to them. */
  running: { file: string; pid: number; command: string }[];
  /** Unreadable or untrusted journal files and folders. */
  errors: string[];
  /** Temporary files of writers killed mid-write, removed. */
  removedTemp: string[];
}

/** Restores the journals in `dirs` under the settings lock (see the header); throws only when the lock is taken. */
export async function restoreJournals(
  dirs: readonly string[],
  options: RestoreJournalsOptions,
): Promise<RestoreJournalsOutcome> {
  const lock = await acquireSettingsLockWaiting(
    options.roots.procRoot,
    options.command,
    options.lockWaitMs ?? 0,
    options.lock,
  );
  try {
    const removedTemp = dirs.flatMap((d) => removeStaleTempJournals(d, options.deps ?? {}));
    const { journals, errors } = findJournalsIn(dirs, options.deps);
    const outcome: RestoreJournalsOutcome = {
      restored: [],
      refused: [],
      declined: [],
      running: journals
        .filter((j) => j.alive)
        .map((j) => ({ file: j.file, pid: j.journal.owner.pid, command: j.journal.owner.command })),
      errors,
      removedTemp,
    };
    for (const j of restoreOrder(journals, options.includeManual)) {
      const verdict = judgeJournalEntries(j.journal.entries, options.roots);
      if (!verdict.trusted) {
        outcome.refused.push({
          file: j.file,
          command: j.journal.owner.command,
          reasons: verdict.reasons,
        });
        continue;
      }
      if (options.confirm && !(await options.confirm(j))) {
        outcome.declined.push(j.file);
        continue;
      }
      const report = j.journal.restore({}, (e) => verdict.paths.get(e) ?? e.path);
      outcome.restored.push({ file: j.file, command: j.journal.owner.command, report });
    }
    return outcome;
  } finally {
    lock.release();
  }
}
