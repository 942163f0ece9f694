// One lock for every xrunhunt run that changes kernel settings on a machine, whatever its
// journal folder (root with and without `sudo -E`, a systemd unit beside an interactive run).
// Without it two runs each journal the other's mask as "the original" and the real originals
// are lost for good. The lock is an flock(2) on a file under /run/xrunhunt (the kernel
// releases it when the holder dies, kill -9 included); the file names the holder (pid,
// command) so a refused run can say who is in the way. Keyed on what is changed, by file
// system identity: a proc root that is a real procfs (/proc, a second `mount -t proc`, a bind
// mount of /proc) or a sys root that is a real sysfs takes the one machine lock; only a tree of
// plain files (tests, copied trees) has its own, so parallel test files never contend. Taken before any current value is read, held until restore is complete.
// Re-entrant within one process (a session takes it, then its parts take it again).
import * as nodeFs from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { tryLockExclusive } from './flock.js';
import { judgeOwnership, lstatFacts, runningUid } from './journal-trust.js';
import { SYSFS_MAGIC as SYSFS_TYPE, fsTypeOf, isKernelRootFs } from './kernel-fs.js';

/** Root's lock folder: a tmpfs, like the state it guards (kernel settings do not survive a boot). */
export const ROOT_LOCK_DIR = '/run/xrunhunt';

/** Who holds a settings lock, as written into the lock file. */
export interface SettingsLockHolder {
  pid: number;
  command: string;
  startedAt: string;
  procRoot: string;
}

/** A taken settings lock; release() is idempotent. */
export interface SettingsLock {
  readonly file: string;
  release(): void;
}

export interface SettingsLockOptions {
  /** Folder for the lock file (default: /run/xrunhunt for root, <tmp>/xrunhunt-<uid> otherwise). */
  lockDir?: string;
  uid?: number;
  tmp?: string;
  /**
   * The sys root the run changes, when it changes one: a real sysfs there is the machine's
   * settings, so the machine lock is taken whatever the proc root is.
   */
  sysRoot?: string;
}

/**
 * Pure: the lock file's name for a proc root (its real path and statfs type): `settings.lock`
 * for the real kernel (/proc, or any procfs/sysfs mount), else one named after the tree.
 */
export function settingsLockName(realProcRoot: string, fsType?: number): string {
  if (realProcRoot === '/proc' || isKernelRootFs(fsType)) return 'settings.lock';
  return `settings-${createHash('sha256').update(realProcRoot).digest('hex').slice(0, 16)}.lock`;
}

/** Reads the holder a lock file names; undefined when it is empty or not a holder record. */
export function parseLockHolder(text: string): SettingsLockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<SettingsLockHolder>;
    if (typeof v.pid !== 'number' || typeof v.command !== 'string') return undefined;
    return {
      pid: v.pid,
      command: v.command,
      startedAt: typeof v.startedAt === 'string' ? v.startedAt : '',
      procRoot: typeof v.procRoot === 'string' ? v.procRoot : '',
    };
  } catch {
    return undefined;
  }
}

/** The message a run gets when another run holds the lock (the watch command keys on "another xrunhunt"). */
export function lockHeldError(
  holder: SettingsLockHolder | undefined,
  procRoot: string,
  file: string,
): XrunhuntError {
  const who = holder
    ? `pid ${holder.pid}, "${quoteUntrusted(holder.command, 80)}"${holder.startedAt ? `, started ${quoteUntrusted(holder.startedAt, 40)}` : ''}`
    : 'pid unknown';
  return new XrunhuntError(
    'resource',
    `another xrunhunt (${who}) is changing kernel settings under ${quoteUntrusted(procRoot)} right now; two runs at once would each journal the other's values as the originals`,
    {
      hint: `wait for it to finish (or stop it with Ctrl-C): it restores the original values when it ends (lock file ${file})`,
    },
  );
}

interface HeldLock {
  fd: number;
  count: number;
}

const held = new Map<string, HeldLock>();

function realOrResolved(path: string): string {
  try {
    return nodeFs.realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Makes (or checks) the lock folder: ours, not writable by others. Returns why not, or null. */
function prepareLockDir(dir: string, uid: number): string | null {
  try {
    nodeFs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') return code ?? String(err);
  }
  const why = judgeOwnership(lstatFacts(dir), 'directory', uid);
  if (why !== null) {
    throw new XrunhuntError(
      'permission',
      `refusing the lock folder ${quoteUntrusted(dir)}: ${why}`,
      { hint: `remove ${quoteUntrusted(dir)} if you did not create it` },
    );
  }
  return null;
}

/** The lock file for `procRoot`, its folder created (root: /run/xrunhunt, else a per-user tmp folder). */
export function settingsLockFile(procRoot: string, options: SettingsLockOptions = {}): string {
  const uid = options.uid ?? runningUid();
  const real = realOrResolved(procRoot);
  const sysIsKernel =
    options.sysRoot !== undefined && isKernelRootFs(fsTypeOf(realOrResolved(options.sysRoot)));
  const name = settingsLockName(real, sysIsKernel ? SYSFS_TYPE : fsTypeOf(real));
  const perUser = join(options.tmp ?? tmpdir(), `xrunhunt-${uid}`);
  const dirs = options.lockDir
    ? [options.lockDir]
    : uid === 0
      ? [ROOT_LOCK_DIR, perUser]
      : [perUser];
  const failures: string[] = [];
  for (const dir of dirs) {
    const why = prepareLockDir(dir, uid);
    if (why === null) return join(dir, name);
    failures.push(`${dir}: ${why}`);
  }
  throw new XrunhuntError(
    'resource',
    `cannot create the settings lock folder (${failures.join('; ')})`,
    { hint: 'xrunhunt changes kernel settings only under its lock; make /run writable for root' },
  );
}

/**
 * Takes the settings lock for `procRoot` without waiting, or throws naming the run that has
 * it. Call before reading any current value; release after the restore is complete.
 */
export function acquireSettingsLock(
  procRoot: string,
  command: string,
  options: SettingsLockOptions = {},
): SettingsLock {
  const uid = options.uid ?? runningUid();
  const file = settingsLockFile(procRoot, options);
  const mine = held.get(file);
  if (mine) {
    mine.count++;
    return handle(file);
  }
  sweepStaleTreeLocks(dirname(file), file);
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number;
    try {
      fd = nodeFs.openSync(
        file,
        nodeFs.constants.O_RDWR | nodeFs.constants.O_CREAT | nodeFs.constants.O_NOFOLLOW,
        0o600,
      );
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new XrunhuntError(
        code === 'ELOOP' ? 'permission' : 'resource',
        `cannot open the settings lock ${quoteUntrusted(file)}: ${code === 'ELOOP' ? 'it is a symbolic link' : (err as Error).message}`,
        {
          hint:
            code === 'ELOOP'
              ? `xrunhunt never makes one: remove ${quoteUntrusted(file)}`
              : 'xrunhunt changes kernel settings only under its lock; check the lock folder',
          cause: err,
        },
      );
    }
    let keep = false;
    try {
      const st = nodeFs.fstatSync(fd);
      if (!st.isFile() || st.uid !== uid) {
        throw new XrunhuntError(
          'permission',
          `refusing the settings lock ${quoteUntrusted(file)}: it is not a regular file owned by uid ${uid}`,
          { hint: `remove ${quoteUntrusted(file)} if you did not create it` },
        );
      }
      if (!tryLockExclusive(fd)) {
        let text = '';
        try {
          text = nodeFs.readFileSync(fd, 'utf8');
        } catch {
          text = '';
        }
        throw lockHeldError(parseLockHolder(text), procRoot, file);
      }
      // The holder before us may have unlinked the file after we opened it: then our lock is on
      // an orphan inode. Only a lock on the file the path names now counts.
      let now: nodeFs.Stats | undefined;
      try {
        now = nodeFs.lstatSync(file);
      } catch {
        now = undefined;
      }
      if (!now || now.ino !== st.ino || now.dev !== st.dev) continue;
      const holder: SettingsLockHolder = {
        pid: process.pid,
        command,
        startedAt: new Date().toISOString(),
        procRoot,
      };
      nodeFs.ftruncateSync(fd, 0);
      nodeFs.writeSync(fd, JSON.stringify(holder) + '\n', 0);
      held.set(file, { fd, count: 1 });
      keep = true;
      return handle(file);
    } finally {
      if (!keep) nodeFs.closeSync(fd);
    }
  }
  throw new XrunhuntError(
    'resource',
    `cannot take the settings lock ${file}: it keeps being replaced`,
    {
      hint: 'another xrunhunt is starting and stopping in a loop; retry when it is done',
    },
  );
}

/**
 * Removes lock files of fake trees whose holder died without releasing (a kill -9 leaves the
 * file, not the lock). Safe against a concurrent acquirer: a file is unlinked only while this
 * process holds its flock, and an acquirer that opened it before re-checks the inode.
 */
function sweepStaleTreeLocks(dir: string, except: string): void {
  let names: string[];
  try {
    names = nodeFs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const file = join(dir, name);
    if (!/^settings-[0-9a-f]{16}\.lock$/.test(name) || file === except || held.has(file)) continue;
    let fd: number;
    try {
      fd = nodeFs.openSync(file, nodeFs.constants.O_RDWR | nodeFs.constants.O_NOFOLLOW);
    } catch {
      continue;
    }
    try {
      if (tryLockExclusive(fd)) nodeFs.unlinkSync(file);
    } catch {
      // not ours to judge
    } finally {
      nodeFs.closeSync(fd);
    }
  }
}

function handle(file: string): SettingsLock {
  let released = false;
  return {
    file,
    release() {
      if (released) return;
      released = true;
      const h = held.get(file);
      if (!h) return;
      if (--h.count > 0) return;
      held.delete(file);
      // Unlink while still holding it, then close (which drops the flock): a waiter that opened
      // the old inode sees it is no longer the file at `file` and retries.
      try {
        nodeFs.unlinkSync(file);
      } catch {
        // already gone
      }
      nodeFs.closeSync(h.fd);
    },
  };
}

/**
 * acquireSettingsLock, retrying for up to `waitMs` while another run holds the lock (for short
 * critical sections such as the pending restore, which a parallel run holds only briefly).
 */
export async function acquireSettingsLockWaiting(
  procRoot: string,
  command: string,
  waitMs: number,
  options: SettingsLockOptions = {},
): Promise<SettingsLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return acquireSettingsLock(procRoot, command, options);
    } catch (err) {
      const busy = err instanceof XrunhuntError && err.message.startsWith('another xrunhunt');
      if (!busy || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Whether this process holds the settings lock for `procRoot`. */
export function holdsSettingsLock(procRoot: string, options: SettingsLockOptions = {}): boolean {
  return held.has(settingsLockFile(procRoot, options));
}

/** Runs `fn` under the settings lock for `procRoot` (sync or async), releasing it afterwards. */
export async function withSettingsLock<T>(
  procRoot: string,
  command: string,
  fn: () => T | Promise<T>,
  options: SettingsLockOptions = {},
): Promise<T> {
  const lock = acquireSettingsLock(procRoot, command, options);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
