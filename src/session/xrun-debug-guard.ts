// The session's hold on xrun_debug: journal the original, set the mask on the PCM the
// session actually opened, change it mid-run (stack dumps on/off from the dashboard), and
// restore it exactly once — on normal end, on error, on a signal, and on process.exit.
// A kill -9 leaves the session journal; the next run restores it (restorePendingJournals).
import type { PcmStreamInfo, RestoreReport, XrunDebugChange } from '../proc/index.js';
import {
  SettingsJournal,
  XrunDebugControl,
  assertNoLiveSession,
  currentOwner,
  sessionJournalFile,
} from '../proc/index.js';
import type { SettingFileIo } from '../proc/index.js';

export interface XrunDebugGuard {
  readonly stream: PcmStreamInfo;
  readonly mask: number;
  readonly changes: XrunDebugChange[];
  /** Sets another mask on the same stream (journaled original is kept). */
  setMask(mask: number): void;
  /** Puts the original back; idempotent; never throws (failures are in the report). */
  restore(): RestoreReport | null;
}

export interface XrunDebugGuardOptions {
  journalDir: string;
  toolVersion: string;
  command: string;
  io?: SettingFileIo;
}

/** Journals and sets `mask` on `stream`'s xrun_debug; returns the guard that restores it. */
export function takeXrunDebug(
  stream: PcmStreamInfo,
  mask: number,
  options: XrunDebugGuardOptions,
): XrunDebugGuard {
  if (stream.xrunDebugPath) assertNoLiveSession(options.journalDir, [stream.xrunDebugPath]);
  const journal = SettingsJournal.open(
    sessionJournalFile(options.journalDir, process.pid),
    currentOwner(options.command, true, options.toolVersion),
    options.io ? { io: options.io } : {},
  );
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
    changes = control.enable([stream], mask);
  } catch (err) {
    restoreOnce();
    throw err;
  }
  return {
    stream,
    get mask() {
      return current;
    },
    changes,
    setMask(m: number) {
      if (done) return;
      control.enable([stream], m);
      current = m;
    },
    restore: restoreOnce,
  };
}
