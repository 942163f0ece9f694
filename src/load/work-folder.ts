// The load's own temporary folder: created under the user's --dir with a lock file naming the
// owning process, removed when the load ends, and removed by the next start if its owner was
// killed. Nothing outside such a folder is ever written or deleted.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode, XrunhuntError } from '../errors.js';
import type { CleanedFolder, LoadKind } from './types.js';

export const FOLDER_PREFIX = 'xrunhunt-load-';
export const LOCK_FILE = 'xrunhunt-load.lock';
// A folder without a lock older than this was left by a run killed between mkdir and writing
// its lock (microseconds apart); younger ones may be another run starting right now.
const UNLOCKED_STALE_MS = 60_000;

export interface LockInfo {
  pid: number;
  /** Kernel start time of `pid` (clock ticks since boot), so a reused PID is not mistaken for the owner. */
  startTime?: number;
  kind: LoadKind;
  createdAt: string;
}

/** Reads the start time (field 22) from /proc/<pid>/stat text; undefined if unreadable. */
export function parseProcStartTime(statText: string): number | undefined {
  // comm (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const fields = statText.slice(statText.lastIndexOf(')') + 2).split(' ');
  const v = Number(fields[19]);
  return Number.isFinite(v) ? v : undefined;
}

/** Whether the process that wrote a lock is still running (same PID and same start time). */
export async function isOwnerAlive(lock: LockInfo): Promise<boolean> {
  try {
    process.kill(lock.pid, 0);
  } catch (err) {
    if (errnoCode(err) === 'ESRCH') return false;
    // EPERM: it exists but belongs to someone else; treat as alive.
  }
  if (lock.startTime === undefined) return true;
  return (await procStartTime(lock.pid)) === lock.startTime;
}

async function procStartTime(pid: number): Promise<number | undefined> {
  try {
    return parseProcStartTime(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Creates `<parent>/xrunhunt-load-<kind>-XXXXXX/` with a lock naming this process. */
export async function createWorkFolder(parent: string, kind: LoadKind): Promise<string> {
  let path: string;
  try {
    path = await mkdtemp(join(parent, `${FOLDER_PREFIX}${kind}-`));
  } catch (err) {
    const code = errnoCode(err);
    throw new XrunhuntError(
      code === 'EACCES' || code === 'EROFS' ? 'permission' : 'not-found',
      `cannot create the load's folder in ${parent}: ${code ?? String(err)}`,
      { hint: 'choose a writable folder on the filesystem to stress with --dir', cause: err },
    );
  }
  const startTime = await procStartTime(process.pid);
  const lock: LockInfo = {
    pid: process.pid,
    ...(startTime === undefined ? {} : { startTime }),
    kind,
    createdAt: new Date().toISOString(),
  };
  await writeFile(join(path, LOCK_FILE), JSON.stringify(lock) + '\n');
  return path;
}

/** Removes a work folder and everything in it (the load's own files only). */
export async function removeWorkFolder(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
}

/** Removes folders under `parent` left by killed loads; returns what was removed. */
export async function cleanStaleFolders(
  parent: string,
  alive: (lock: LockInfo) => Promise<boolean> = isOwnerAlive,
  now: number = Date.now(),
): Promise<CleanedFolder[]> {
  let names: string[];
  try {
    names = (await readdir(parent)).filter((n) => n.startsWith(FOLDER_PREFIX));
  } catch {
    return [];
  }
  const cleaned: CleanedFolder[] = [];
  for (const name of names) {
    const path = join(parent, name);
    let lock: LockInfo | undefined;
    try {
      lock = JSON.parse(await readFile(join(path, LOCK_FILE), 'utf8')) as LockInfo;
    } catch (err) {
      if (errnoCode(err) === 'ENOTDIR') continue;
      // No readable lock: stale only once it is clearly not a run that is starting right now.
      try {
        const s = await stat(path);
        if (!s.isDirectory() || now - s.mtimeMs < UNLOCKED_STALE_MS) continue;
      } catch {
        continue;
      }
    }
    if (lock && typeof lock.pid === 'number' && (await alive(lock))) continue;
    await removeWorkFolder(path);
    cleaned.push({ path, pid: lock?.pid ?? 0 });
  }
  return cleaned;
}
