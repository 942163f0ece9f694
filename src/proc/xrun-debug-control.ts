// Sets xrun_debug on PCM streams through a journal, and undoes it. The only code that writes
// xrun_debug. Lasting changes (`debug on`) go to the manual journal; temporary ones (a session)
// go to a per-process journal and are restored on return, on SIGINT/SIGTERM/SIGHUP (the
// caller's AbortSignal), on process.exit, and, after a kill -9, by the next run.
import type { PcmStreamInfo } from './discover-asound.js';
import type { RestoreReport } from './journal.js';
import { SettingsJournal } from './journal.js';
import { currentOwner, findJournals, sessionJournalFile } from './journal-files.js';
import type { SettingFileIo } from './setting-file.js';
import { realSettingFileIo } from './setting-file.js';
import { parseXrunDebugValue } from './asound-formats.js';
import { XrunhuntError } from '../errors.js';

/** Journal entry kind for xrun_debug values. */
export const XRUN_DEBUG_KIND = 'xrun_debug';

/** One stream changed: from what, to what. */
export interface XrunDebugChange {
  pcm: string;
  path: string;
  from: number | undefined;
  to: number;
}

/** Normalises an xrun_debug file's text to the value restore writes back (`"3\n"` → `"3"`). */
function normalizeXrunDebug(text: string): string {
  const v = parseXrunDebugValue(text);
  if (v === undefined) {
    throw new XrunhuntError(
      'format',
      `expected an integer in xrun_debug, found ${JSON.stringify(text.slice(0, 40))}`,
      {
        hint: 'this does not look like a kernel xrun_debug file; check --proc-root',
      },
    );
  }
  return String(v);
}

/** Save/set/restore of xrun_debug over one journal (rtla osnoise_context, made durable). */
export class XrunDebugControl {
  readonly journal: SettingsJournal;
  private readonly io: SettingFileIo;

  constructor(journal: SettingsJournal, io: SettingFileIo = realSettingFileIo) {
    this.journal = journal;
    this.io = io;
  }

  /**
   * Sets `mask` on each stream, journaling every original first. All or nothing: when one
   * write fails, the streams changed by this call are put back, their fresh journal entries
   * dropped, and the error is thrown.
   */
  enable(streams: PcmStreamInfo[], mask: number): XrunDebugChange[] {
    const changes: XrunDebugChange[] = [];
    const undo: { path: string; value: string }[] = [];
    const recordedHere: string[] = [];
    for (const s of streams) {
      if (s.xrunDebugPath === undefined) {
        throw new XrunhuntError('unsupported', `${s.pcm} has no xrun_debug file`, {
          hint: 'run "xrunhunt debug status" to see why',
        });
      }
      try {
        const before = normalizeXrunDebug(this.io.read(s.xrunDebugPath));
        if (!this.journal.has(s.xrunDebugPath)) recordedHere.push(s.xrunDebugPath);
        this.journal.set(s.xrunDebugPath, String(mask), {
          kind: XRUN_DEBUG_KIND,
          normalize: normalizeXrunDebug,
        });
        undo.push({ path: s.xrunDebugPath, value: before });
        changes.push({ pcm: s.pcm, path: s.xrunDebugPath, from: Number(before), to: mask });
      } catch (err) {
        for (const u of undo.reverse()) {
          try {
            this.io.write(u.path, u.value);
          } catch {
            // still journaled: `xrunhunt debug restore` can retry
            recordedHere.splice(recordedHere.indexOf(u.path), 1);
          }
        }
        try {
          this.journal.forget(recordedHere);
        } catch {
          // a stale entry holds the current value: restoring it later is harmless
        }
        throw err;
      }
    }
    return changes;
  }

  /** Puts back every journaled original and clears the journal; never throws. */
  restore(): RestoreReport {
    return this.journal.restore();
  }
}

export interface WithXrunDebugOptions {
  /** Journal folder (see defaultJournalDir). */
  journalDir: string;
  /** Shown to a later run that finds the journal (`session`, `debug on --for 10m`). */
  command: string;
  toolVersion: string;
  io?: SettingFileIo;
  /** Called with the restore report (to print it); failures are in report.failed. */
  onRestore?: (report: RestoreReport) => void;
}

/** Refuses to layer temporary changes over another live xrunhunt's (restores would interleave wrongly). */
export function assertNoLiveSession(journalDir: string, paths: string[]): void {
  const { journals } = findJournals(journalDir);
  for (const j of journals) {
    if (!j.alive || j.journal.owner.pid === process.pid) continue;
    const overlap = j.journal.entries.filter((e) => paths.includes(e.path));
    if (overlap.length > 0) {
      throw new XrunhuntError(
        'resource',
        `another xrunhunt (pid ${j.journal.owner.pid}, "${j.journal.owner.command}") is changing ${overlap[0]!.path} right now`,
        {
          hint: 'wait for it to finish (or stop it with Ctrl-C); it restores the original values when it ends',
        },
      );
    }
  }
}

/**
 * Runs `fn` with xrun_debug set to `mask` on `streams`, then restores the originals: on
 * return, on throw, when `signal` aborts (fn is expected to return promptly), and on
 * process.exit. A kill -9 leaves the session journal for restorePendingJournals().
 */
export async function withXrunDebug<T>(
  streams: PcmStreamInfo[],
  mask: number,
  signal: AbortSignal,
  fn: (changes: XrunDebugChange[], signal: AbortSignal) => Promise<T>,
  options: WithXrunDebugOptions,
): Promise<T> {
  signal.throwIfAborted();
  assertNoLiveSession(
    options.journalDir,
    streams.flatMap((s) => (s.xrunDebugPath ? [s.xrunDebugPath] : [])),
  );
  const journal = SettingsJournal.open(
    sessionJournalFile(options.journalDir, process.pid),
    currentOwner(options.command, true, options.toolVersion),
    { io: options.io ?? realSettingFileIo },
  );
  const control = new XrunDebugControl(journal, options.io);
  let restored = false;
  const restoreOnce = (): void => {
    if (restored) return;
    restored = true;
    const report = control.restore();
    options.onRestore?.(report);
  };
  // process.exit() (a second Ctrl-C) skips finally blocks; restore is synchronous, so it can run here.
  process.once('exit', restoreOnce);
  try {
    const changes = control.enable(streams, mask);
    return await fn(changes, signal);
  } finally {
    process.off('exit', restoreOnce);
    restoreOnce();
  }
}
