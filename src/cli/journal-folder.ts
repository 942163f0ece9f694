// The journal folder of the user running a command, found by the one resolver (src/proc) for
// every command that reads or changes settings — debug, session, watch, stress — so that
// `debug restore` looks where a session wrote.
import { homedir, tmpdir } from 'node:os';
import { resolveJournalFolder, type JournalFolder } from '../proc/index.js';
import type { CliIo } from './command.js';

/** The journal folder for this user (one resolver for every command: resolveJournalFolder). */
export function journalFolderFor(io: CliIo): JournalFolder {
  return resolveJournalFolder({
    env: io.env,
    uid: process.geteuid?.() ?? process.getuid?.() ?? 1000,
    home: io.env['HOME'] || homedir(),
    tmp: tmpdir(),
  });
}

/** Says on stderr why the journal folder is not the obvious one. */
export function writeJournalFolderNotes(io: CliIo, folder: JournalFolder): void {
  for (const note of [folder.ignoredXdgReason, folder.fallbackReason])
    if (note) io.stderr.write(`xrunhunt: note: ${note}\n`);
}
