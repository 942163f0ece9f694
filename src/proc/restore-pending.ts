// Every command that changes kernel settings calls this first: a session journal whose owner
// died (kill -9, crash, power cut) still holds original values the kernel no longer has.
// Interactive terminal: ask. Otherwise: restore and say so on stderr (a script's next run
// must not silently stack new changes on a killed run's). The restore itself (lock, trust
// checks, order) is restore-journals.ts; this is the prompt and the words.
import type { Readable, Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import type { RestoreReport } from './journal.js';
import type { SettingRoots } from './journal-trust.js';
import { SYSTEM_SETTING_ROOTS } from './journal-trust.js';
import type { RefusedJournal } from './restore-journals.js';
import { restoreJournals } from './restore-journals.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

export { deadSessionJournals } from './restore-journals.js';

/** How long a caller without roots waits for the /proc lock held by another short restore. */
const LEGACY_LOCK_WAIT_MS = 3000;

export interface PendingRestoreIo {
  stderr: Writable;
  stdin: Readable;
  /** Ask before restoring (stdin and stderr are terminals). */
  interactive: boolean;
  /**
   * The roots the journaled paths must lie under (default: the real /proc and /sys). Pass the
   * run's --proc-root/--sys-root: an entry outside them is refused, not written.
   */
  roots?: SettingRoots;
  /** The command, shown to a run that finds the settings lock taken. */
  command?: string;
}

export interface PendingRestoreOutcome {
  found: number;
  restored: { file: string; report: RestoreReport }[];
  declined: string[];
  refused: RefusedJournal[];
  errors: string[];
}

/** Asks one yes/no question on stderr; default yes. */
async function askYesNo(io: PendingRestoreIo, question: string): Promise<boolean> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    io.stderr.write(question);
    const answer: string = await new Promise((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
    return !/^\s*n/i.test(answer);
  } finally {
    rl.close();
  }
}

/** Formats a restore report as lines for stderr. */
export function describeRestoreReport(report: RestoreReport): string[] {
  return [
    ...report.restored.map(
      (r) => `restored ${quoteUntrusted(r.path)} = ${quoteUntrusted(r.value)}`,
    ),
    ...report.gone.map((p) => `skipped ${quoteUntrusted(p)}: it no longer exists`),
    ...report.failed.map(
      (f) => `FAILED to restore ${quoteUntrusted(f.path)} = ${quoteUntrusted(f.value)}: ${f.error}`,
    ),
  ];
}

/** Formats a refused journal as lines: which checks failed and what to do. */
export function describeRefusedJournal(r: RefusedJournal): string[] {
  return [
    `refusing to restore ${quoteUntrusted(r.file)} ("${quoteUntrusted(r.command, 80)}"): it names settings xrunhunt does not change`,
    ...r.reasons.map((why) => `  ${why}`),
    `  if it belongs to a copied tree, restore it with --proc-root/--sys-root naming that tree; remove ${quoteUntrusted(r.file)} if you did not create it`,
  ];
}

/**
 * Restores journals left by killed runs (asking first on a terminal), under the settings lock
 * and after the trust checks; never throws for a failed setting (throws when the lock is taken).
 * `journalDir`: the folder, or every folder to look in (JournalFolder.searchDirs).
 */
export async function restorePendingJournals(
  journalDir: string | readonly string[],
  io: PendingRestoreIo,
): Promise<PendingRestoreOutcome> {
  const dirs = typeof journalDir === 'string' ? [journalDir] : journalDir;
  const found: string[] = [];
  const describe = (pid: number, command: string, startedAt: string, n: number): string =>
    `a killed xrunhunt run (pid ${pid}, "${quoteUntrusted(command, 80)}", started ${quoteUntrusted(startedAt, 40)}) left ${n} kernel setting(s) changed`;
  const outcome = await restoreJournals(dirs, {
    roots: io.roots ?? SYSTEM_SETTING_ROOTS,
    includeManual: false,
    command: io.command ?? 'restore of a killed run',
    // Callers that do not name their roots lock the real /proc for this short restore; another
    // such caller (a parallel session on its own fake tree) holds it only for a moment.
    lockWaitMs: io.roots ? 0 : LEGACY_LOCK_WAIT_MS,
    async confirm(j) {
      found.push(j.file);
      const o = j.journal.owner;
      const what = describe(o.pid, o.command, o.startedAt, j.journal.entries.length);
      if (!io.interactive) {
        io.stderr.write(`xrunhunt: ${what}; restoring the original values\n`);
        return true;
      }
      const yes = await askYesNo(io, `xrunhunt: ${what}.\nRestore the original values now? [Y/n] `);
      if (!yes)
        io.stderr.write(
          `xrunhunt: left as they are; "xrunhunt debug restore" puts them back later\n`,
        );
      return yes;
    },
  });
  for (const e of outcome.errors) io.stderr.write(`xrunhunt: warning: ${e}\n`);
  for (const r of outcome.refused)
    for (const line of describeRefusedJournal(r)) io.stderr.write(`xrunhunt: warning: ${line}\n`);
  for (const f of outcome.removedTemp)
    io.stderr.write(`xrunhunt: removed ${quoteUntrusted(f)}, left half-written by a killed run\n`);
  for (const r of outcome.restored)
    for (const line of describeRestoreReport(r.report)) io.stderr.write(`xrunhunt:   ${line}\n`);
  return {
    found: found.length + outcome.refused.length,
    restored: outcome.restored.map((r) => ({ file: r.file, report: r.report })),
    declined: outcome.declined,
    refused: outcome.refused,
    errors: outcome.errors,
  };
}
