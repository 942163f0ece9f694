// What every command that runs sessions (session, stress, try) hands each one about this
// machine and this user: the /proc roots, the journal folder, the tool's identity and the
// terminal. One place, so the three commands cannot drift apart.
import { machineId } from '../bundle/index.js';
import type { JournalFolder } from '../proc/index.js';
import type { SessionOptions } from '../session/run-session.js';
import { toolVersion } from '../tool-version.js';
import type { CliIo } from './command.js';

/** The session options that come from the machine, not from the run's plan. */
export type SessionMachineOptions = Omit<
  SessionOptions,
  'params' | 'phases' | 'injectStall' | 'outDir'
>;

// Builds the machine part of a session's options from the command's io and root options.
export function sessionMachineOptions(
  io: CliIo,
  roots: { procRoot: string; sysRoot: string; bootRoot: string },
  journal: JournalFolder,
  terminal: { interactive: boolean; progress: boolean; onXrun?: string | null },
): SessionMachineOptions {
  return {
    onXrun: terminal.onXrun ?? null,
    channels: 2,
    format: 'S16_LE',
    roots,
    journalDir: journal.dir,
    journalSearchDirs: journal.searchDirs,
    toolVersion: toolVersion(),
    machineId: () => machineId(io.env),
    env: io.env,
    stderr: io.stderr,
    stdin: io.stdin,
    interactive: terminal.interactive,
    progress: terminal.progress,
  };
}
