// A run's hold on xrun_debug, for one PCM (a session) or several (a watch): refuse when
// another live xrunhunt is changing the same files, journal the originals, set the mask,
// change it mid-run (stack dumps on/off from the dashboard), and restore exactly once — on
// normal end, on error, on a signal, and on process.exit. A kill -9 leaves the session
// journal; the next run restores it (restorePendingJournals).
import type {
  PcmStreamInfo,
  RestoreReport,
  SettingFileIo,
  XrunDebugChange,
} from '../proc/index.js';
import {
  SettingsJournal,
  XrunDebugControl,
  assertNoLiveSession,
  currentOwner,
  describeRestoreReport,
  sessionJournalFile,
} from '../proc/index.js';
import { errorMessage } from '../errors.js';

/** xrun_debug bit 2: print a stack dump with each XRUN header. */
const STACK_DUMP_BIT = 2;

export interface XrunDebugGuard {
  readonly streams: readonly PcmStreamInfo[];
  /** The mask in force now. */
  readonly mask: number;
  readonly changes: readonly XrunDebugChange[];
  /** Sets another mask on the same streams (the journaled originals are kept). */
  setMask(mask: number): void;
  /** Turns the stack-dump bit on or off, keeping the other bits. */
  setStackDumps(on: boolean): void;
  /** Puts the originals back; idempotent; never throws (failures are in the report). */
  restore(): RestoreReport | null;
}

export interface XrunDebugGuardOptions {
  journalDir: string;
  toolVersion: string;
  /** The command the journal names as its owner ("session --device hw:0,0"). */
  command: string;
  io?: SettingFileIo;
}

/** Setting xrun_debug either worked, or failed for a reason the run reports and lives with. */
export type XrunDebugTake = { ok: true; guard: XrunDebugGuard } | { ok: false; reason: string };

/**
 * Journals and sets `mask` on the streams' xrun_debug. Another live xrunhunt changing the
 * same files is fatal (thrown: two runs would restore over each other); a write that fails
 * (no rights, read-only /proc) is returned, so the run goes on without kernel dumps.
 */
export function takeXrunDebug(
  streams: readonly PcmStreamInfo[],
  mask: number,
  options: XrunDebugGuardOptions,
): XrunDebugTake {
  const targets = streams.filter((s) => s.xrunDebugPath !== undefined);
  assertNoLiveSession(
    options.journalDir,
    targets.map((s) => s.xrunDebugPath!),
  );
  let journal: SettingsJournal;
  try {
    journal = SettingsJournal.open(
      sessionJournalFile(options.journalDir, process.pid),
      currentOwner(options.command, true, options.toolVersion),
      options.io ? { io: options.io } : {},
    );
  } catch (err) {
    return { ok: false, reason: errorMessage(err) };
  }
  const control = new XrunDebugControl(journal, options.io);
  let current = mask;
  let restored: RestoreReport | null = null;
  let done = false;
  const restoreOnce = (): RestoreReport | null => {
    if (done) return restored;
    done = true;
    process.off('exit', onExit);
    restored = control.restore();
    return restored;
  };
  // process.exit() (a second Ctrl-C) skips finally blocks; restore is synchronous.
  const onExit = (): void => void restoreOnce();
  process.once('exit', onExit);
  let changes: XrunDebugChange[];
  try {
    changes = control.enable(targets, mask);
  } catch (err) {
    restoreOnce();
    return { ok: false, reason: errorMessage(err) };
  }
  const setMask = (m: number): void => {
    if (done) return;
    control.enable(targets, m);
    current = m;
  };
  return {
    ok: true,
    guard: {
      streams: targets,
      get mask() {
        return current;
      },
      changes,
      setMask,
      setStackDumps: (on) => setMask(on ? current | STACK_DUMP_BIT : current & ~STACK_DUMP_BIT),
      restore: restoreOnce,
    },
  };
}

/** The /proc PCMs a guard holds, as reports and capture-status events name them. */
export function guardedPcms(guard: XrunDebugGuard): string {
  return guard.streams.map((s) => s.pcm).join(',');
}

/** Restores and says what happened: failures as warnings (with the way out), the rest as a note. */
export function restoreXrunDebugReporting(
  guard: XrunDebugGuard,
  say: { warn(message: string): void; note(line: string): void },
): void {
  const report = guard.restore();
  if (!report) return;
  for (const f of report.failed)
    say.warn(`could not restore ${f.path} to ${f.value}: ${f.error}; run "xrunhunt debug restore"`);
  if (report.restored.length) say.note(describeRestoreReport(report).join('; '));
}
