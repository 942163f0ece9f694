// The inbox folder `serve` writes into: made ready before the first upload (a file in its
// place, or an unwritable folder, is a user error said plainly, not a stack trace), and
// cleared of the temp files a killed receiver left behind. writeFileAtomic (write.ts) names
// its temp files ".<final name>.<pid>.<8 hex>.tmp"; a `kill -9` between open and rename
// leaves one, and nothing else would ever remove it.
import { accessSync, constants, mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { XrunhuntError, errnoCode } from '../errors.js';
import { processIsAlive } from '../process-alive.js';
import { describeInputKind, inspectInputPath } from '../io/input-path.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

/** A temp file older than this is a leftover whoever wrote it (a write takes milliseconds). */
export const STALE_TEMP_MS = 60 * 60 * 1000;

const TEMP_RE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

export interface TempFileFacts {
  name: string;
  mtimeMs: number;
}

/**
 * Which names in an inbox are leftover temp files: written by a process that is gone (or by
 * this process's pid in an earlier life: containers reuse pid 1), or older than an hour.
 * A temp file of another live receiver sharing the inbox is kept.
 */
export function leftoverTempFiles(
  files: readonly TempFileFacts[],
  nowMs: number,
  isAlive: (pid: number) => boolean,
  ownPid: number,
): string[] {
  return files
    .filter((f) => {
      const m = TEMP_RE.exec(f.name);
      if (!m) return false;
      const pid = Number(m[1]);
      return pid === ownPid || !isAlive(pid) || nowMs - f.mtimeMs > STALE_TEMP_MS;
    })
    .map((f) => f.name);
}

/** Creates the inbox if missing and checks it is a folder this process can write into. */
export function prepareInbox(path: string): void {
  const shown = quoteUntrusted(path);
  let exists = true;
  try {
    statSync(path);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOTDIR') {
      throw new XrunhuntError(
        'input',
        `--inbox ${shown}: a part of the path is a file, not a folder`,
        {
          hint: 'name a folder (it is created if missing)',
        },
      );
    }
    if (code !== 'ENOENT') inspectInputPath(path); // throws the right user error
    exists = false;
  }
  if (exists) {
    const facts = inspectInputPath(path);
    if (facts.kind !== 'directory') {
      throw new XrunhuntError(
        'input',
        `--inbox ${shown}: expected a folder, found ${describeInputKind(facts.kind)}`,
        { hint: 'name a folder (it is created if missing), not a file' },
      );
    }
  } else {
    try {
      mkdirSync(path, { recursive: true });
    } catch (err) {
      const code = errnoCode(err);
      throw new XrunhuntError(
        code === 'EACCES' || code === 'EPERM' ? 'permission' : 'input',
        `--inbox ${shown}: cannot create the folder (${code ?? String(err)})`,
        {
          hint:
            code === 'ENOTDIR' || code === 'EEXIST'
              ? 'a part of the path is a file, not a folder'
              : 'create it yourself or choose another path',
        },
      );
    }
  }
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch {
    throw new XrunhuntError('permission', `--inbox ${shown}: this user cannot write into it`, {
      hint: 'fix its owner or mode, or choose another folder',
    });
  }
}

/** Removes leftover temp files from the inbox; returns the names removed. */
export function removeLeftoverTempFiles(inbox: string, nowMs: number = Date.now()): string[] {
  const facts: TempFileFacts[] = [];
  for (const name of readdirSync(inbox)) {
    if (!TEMP_RE.test(name)) continue;
    try {
      const st = statSync(join(inbox, name));
      if (st.isFile()) facts.push({ name, mtimeMs: st.mtimeMs });
    } catch {
      // Gone meanwhile: nothing to remove.
    }
  }
  const removed: string[] = [];
  for (const name of leftoverTempFiles(facts, nowMs, processIsAlive, process.pid)) {
    try {
      unlinkSync(join(inbox, name));
      removed.push(name);
    } catch {
      // Gone meanwhile, or not ours to remove: leave it (watchers skip dot files anyway).
    }
  }
  return removed;
}
