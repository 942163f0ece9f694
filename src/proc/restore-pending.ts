// Every command that changes kernel settings calls this first: a session journal whose owner
// died (kill -9, crash, power cut) still holds original values the kernel no longer has.
// Interactive terminal: ask. Otherwise: restore and say so on stderr (a script's next run
// must not silently stack new changes on a killed run's).
import type { Readable, Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import type { RestoreReport } from './journal.js';
import type { FoundJournal } from './journal-files.js';
import { findJournals } from './journal-files.js';

export interface PendingRestoreIo {
  stderr: Writable;
  stdin: Readable;
  /** Ask before restoring (stdin and stderr are terminals). */
  interactive: boolean;
}

export interface PendingRestoreOutcome {
  found: number;
  restored: { file: string; report: RestoreReport }[];
  declined: string[];
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
    ...report.restored.map((r) => `restored ${r.path} = ${r.value}`),
    ...report.gone.map((p) => `skipped ${p}: it no longer exists`),
    ...report.failed.map((f) => `FAILED to restore ${f.path} = ${f.value}: ${f.error}`),
  ];
}

/** Journals left by dead sessions, oldest first. */
export function deadSessionJournals(journals: FoundJournal[]): FoundJournal[] {
  return journals
    .filter((j) => !j.manual && !j.alive)
    .sort((a, b) => a.journal.owner.startedAt.localeCompare(b.journal.owner.startedAt));
}

/** Restores journals left by killed runs (asking first on a terminal); never throws for a failed setting. */
export async function restorePendingJournals(
  journalDir: string,
  io: PendingRestoreIo,
): Promise<PendingRestoreOutcome> {
  const { journals, errors } = findJournals(journalDir);
  const outcome: PendingRestoreOutcome = { found: 0, restored: [], declined: [], errors };
  for (const e of errors) io.stderr.write(`xrunhunt: warning: ${e}\n`);
  // Newest first: a later run journaled the values an earlier killed run had set.
  const dead = deadSessionJournals(journals).reverse();
  outcome.found = dead.length;
  for (const j of dead) {
    const o = j.journal.owner;
    const what = `a killed xrunhunt run (pid ${o.pid}, "${o.command}", started ${o.startedAt}) left ${j.journal.entries.length} kernel setting(s) changed`;
    if (io.interactive) {
      const yes = await askYesNo(io, `xrunhunt: ${what}.\nRestore the original values now? [Y/n] `);
      if (!yes) {
        io.stderr.write(
          `xrunhunt: left as they are; "xrunhunt debug restore" puts them back later\n`,
        );
        outcome.declined.push(j.file);
        continue;
      }
    } else {
      io.stderr.write(`xrunhunt: ${what}; restoring the original values\n`);
    }
    const report = j.journal.restore();
    for (const line of describeRestoreReport(report)) io.stderr.write(`xrunhunt:   ${line}\n`);
    outcome.restored.push({ file: j.file, report });
  }
  return outcome;
}
