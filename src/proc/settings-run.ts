// How a run that changes kernel settings begins (debug on/off, session, watch, stress): the
// settings lock first — before any current value is read — then the trust-checked restore of
// journals killed runs left. The run keeps the returned lock until its own restore is done.
import type { PendingRestoreIo, PendingRestoreOutcome } from './restore-pending.js';
import { restorePendingJournals } from './restore-pending.js';
import type { SettingRoots } from './journal-trust.js';
import type { SettingsLock } from './settings-lock.js';
import { acquireSettingsLockWaiting } from './settings-lock.js';

export interface BeginSettingsRunOptions extends Omit<PendingRestoreIo, 'roots' | 'command'> {
  roots: SettingRoots;
  /** Every folder a journal may be in (JournalFolder.searchDirs). */
  searchDirs: readonly string[];
  /** Shown to a run that finds the lock taken (`session`, `watch --pcm pcmC0D0p`). */
  command: string;
  /**
   * How long to wait for a lock another run holds (default SHORT_LOCK_WAIT_MS: a run that is
   * just finishing its restore, or a pending restore, does not make this one fail).
   */
  lockWaitMs?: number;
}

/** Long enough for another run's restore or pending restore (milliseconds), short enough to refuse promptly. */
export const SHORT_LOCK_WAIT_MS = 1000;

/** A run that may change settings: its lock and what the pending restore did. */
export interface SettingsRun {
  lock: SettingsLock;
  pending: PendingRestoreOutcome;
}

/**
 * Takes the settings lock for `roots.procRoot` (waiting up to `lockWaitMs`) and restores killed runs' journals under it.
 * Throws (lock released) when another run holds the lock. Call `lock.release()` after the
 * run's own restore is complete.
 */
export async function beginSettingsRun(options: BeginSettingsRunOptions): Promise<SettingsRun> {
  const lock = await acquireSettingsLockWaiting(
    options.roots.procRoot,
    options.command,
    options.lockWaitMs ?? SHORT_LOCK_WAIT_MS,
  );
  try {
    const pending = await restorePendingJournals(options.searchDirs, {
      stderr: options.stderr,
      stdin: options.stdin,
      interactive: options.interactive,
      roots: options.roots,
      command: options.command,
    });
    return { lock, pending };
  } catch (err) {
    lock.release();
    throw err;
  }
}
