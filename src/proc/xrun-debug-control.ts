// Sets xrun_debug on PCM streams through a journal, and undoes it. The only code that writes
// xrun_debug. Lasting changes (`debug on`) go to the manual journal; temporary ones (a session)
// go to a per-process journal and are restored on return, on SIGINT/SIGTERM/SIGHUP (the
// caller's AbortSignal), on process.exit, and, after a kill -9, by the next run.
import type { PcmStreamInfo } from './discover-asound.js';
import type { RestoreReport } from './journal.js';
import { SettingsJournal } from './journal.js';
import { currentOwner, findJournalsIn, sessionJournalFile } from './journal-files.js';
import { resolve } from 'node:path';
import type { SettingsLock } from './settings-lock.js';
import { acquireSettingsLock } from './settings-lock.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import type { SettingFileIo } from './setting-file.js';
import { realSettingFileIo } from './setting-file.js';
import { parseXrunDebugValue } from './asound-formats.js';
import { XrunhuntError } from '../errors.js';
import { assertRestorableChange } from './journal-trust.js';

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

/** The proc root an xrun_debug path lies under (`<root>/asound/cardN/pcmDp/xrun_debug`). */
export function procRootOfXrunDebugPath(path: string): string {
  return resolve(path, '..', '..', '..', '..');
}

/**
 * Save/set/restore of xrun_debug over one journal (rtla osnoise_context, made durable). The
 * first enable() takes the settings lock of the streams' proc root before reading any value;
 * restore() (or releaseLock(), for a change meant to stay) lets it go.
 */
export class XrunDebugControl {
  readonly journal: SettingsJournal;
  private readonly io: SettingFileIo;
  private readonly locks = new Map<string, SettingsLock>();
  private changed = false;

  constructor(journal: SettingsJournal, io: SettingFileIo = realSettingFileIo) {
    this.journal = journal;
    this.io = io;
  }

  private lockFor(streams: PcmStreamInfo[]): void {
    for (const s of streams) {
      if (s.xrunDebugPath === undefined) continue;
      const root = procRootOfXrunDebugPath(s.xrunDebugPath);
      if (this.locks.has(root)) continue;
      this.locks.set(root, acquireSettingsLock(root, this.journal.owner.command));
    }
  }

  /** Lets go of the settings lock, keeping the changes (a lasting `debug on`). */
  releaseLock(): void {
    for (const lock of this.locks.values()) lock.release();
    this.locks.clear();
  }

  /**
   * Sets `mask` on each stream, journaling every original first. All or nothing: when one
   * write fails, the streams changed by this call are put back, their fresh journal entries
   * dropped, and the error is thrown.
   */
  enable(streams: PcmStreamInfo[], mask: number): XrunDebugChange[] {
    this.lockFor(streams);
    try {
      const changes = this.enableLocked(streams, mask);
      this.changed = true;
      return changes;
    } catch (err) {
      if (!this.changed) this.releaseLock();
      throw err;
    }
  }

  private enableLocked(streams: PcmStreamInfo[], mask: number): XrunDebugChange[] {
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
        // Before the first write: the path must be one restore trusts, reached with no planted
        // link, and its original one restore would write back (issue 30).
        this.io.check?.(s.xrunDebugPath);
        const root = procRootOfXrunDebugPath(s.xrunDebugPath);
        assertRestorableChange(
          { path: s.xrunDebugPath, original: before, kind: XRUN_DEBUG_KIND },
          { procRoot: root, sysRoot: root },
        );
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

  /** Puts back every journaled original, clears the journal, releases the lock; never throws. */
  restore(): RestoreReport {
    try {
      return this.journal.restore();
    } finally {
      this.changed = false;
      this.releaseLock();
    }
  }
}

export interface WithXrunDebugOptions {
  /** Journal folder (JournalFolder.dir from resolveJournalFolder). */
  journalDir: string;
  /** Every folder to check for other runs' journals (JournalFolder.searchDirs); default journalDir. */
  searchDirs?: readonly string[];
  /** Shown to a later run that finds the journal (`session`, `debug on --for 10m`). */
  command: string;
  toolVersion: string;
  io?: SettingFileIo;
  /** Called with the restore report (to print it); failures are in report.failed. */
  onRestore?: (report: RestoreReport) => void;
}

/**
 * Refuses a change that would journal a value that is not the original: while a journal in the
 * folder cannot be read or trusted (it may name these very settings), while another run's
 * session journal names one of `paths` (a live run is changing it; a dead run's journal was
 * declined or refused at the pending restore, so the current value is that run's, not the
 * system's). `journalDir`: the folder, or every folder to look in (JournalFolder.searchDirs).
 */
export function assertNoLiveSession(journalDir: string | readonly string[], paths: string[]): void {
  const { journals, errors } = findJournalsIn(
    typeof journalDir === 'string' ? [journalDir] : journalDir,
  );
  const absolute = paths.map((p) => resolve(p));
  if (errors.length > 0) {
    throw new XrunhuntError('resource', `refusing to change kernel settings: ${errors[0]!}`, {
      hint: 'a journal xrunhunt cannot read may hold the originals of the settings it would change; deal with it first (inspect it, put its values back by hand, remove it), then retry',
    });
  }
  for (const j of journals) {
    if (j.manual || j.journal.owner.pid === process.pid) continue;
    const overlap = j.journal.entries.filter((e) => absolute.includes(e.path));
    if (overlap.length === 0) continue;
    const o = j.journal.owner;
    if (j.alive) {
      throw new XrunhuntError(
        'resource',
        `another xrunhunt (pid ${o.pid}, "${quoteUntrusted(o.command, 80)}") is changing ${quoteUntrusted(overlap[0]!.path)} right now`,
        {
          hint: 'wait for it to finish (or stop it with Ctrl-C); it restores the original values when it ends',
        },
      );
    }
    throw new XrunhuntError(
      'resource',
      `${quoteUntrusted(j.file)} (left by a killed run, pid ${o.pid}) still holds the original of ${quoteUntrusted(overlap[0]!.path)}: changing it now would journal the killed run's value as the original`,
      { hint: 'run "xrunhunt debug restore" first (with the same --proc-root), then retry' },
    );
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
  const paths = streams.flatMap((s) => (s.xrunDebugPath ? [s.xrunDebugPath] : []));
  // The lock first: the check below and the journal's first write must not race another run.
  const locks = [...new Set(paths.map(procRootOfXrunDebugPath))].map((root) =>
    acquireSettingsLock(root, options.command),
  );
  try {
    assertNoLiveSession(options.searchDirs ?? options.journalDir, paths);
    return await withXrunDebugLocked(streams, mask, signal, fn, options);
  } finally {
    for (const lock of locks) lock.release();
  }
}

async function withXrunDebugLocked<T>(
  streams: PcmStreamInfo[],
  mask: number,
  signal: AbortSignal,
  fn: (changes: XrunDebugChange[], signal: AbortSignal) => Promise<T>,
  options: WithXrunDebugOptions,
): Promise<T> {
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
