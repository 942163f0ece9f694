// Where the session keeps its settings journal. The default folder (/var/lib/xrunhunt for
// root) may not be writable — a read-only root such as the lab guest's, a locked-down
// system. xrun_debug does not survive a reboot, so a tmpfs folder (/run) is as good a home
// for the journal of a temporary change; anything is better than not journaling at all.
import * as nodeFs from 'node:fs';
import { join } from 'node:path';

/**
 * mkdir -p, one component at a time: Node's own recursive mkdirSync spins forever on some
 * pseudo file systems (measured: a path under /proc never returns).
 */
function mkdirParents(dir: string, fs: Pick<typeof nodeFs, 'mkdirSync'>): void {
  const parts = dir.split('/').filter((p) => p !== '');
  let path = dir.startsWith('/') ? '' : '.';
  for (const part of parts) {
    path = `${path}/${part}`;
    try {
      fs.mkdirSync(path, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Returns a writable journal folder: `preferred` if usable, else a runtime fallback. */
export function usableJournalDir(
  preferred: string,
  uid: number,
  tmp: string,
  fs: Pick<typeof nodeFs, 'mkdirSync' | 'accessSync'> = nodeFs,
): { dir: string; fallbackReason: string | null } {
  const tryDir = (dir: string): string | null => {
    try {
      mkdirParents(dir, fs);
      fs.accessSync(dir, nodeFs.constants.W_OK);
      return null;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code ?? String(err);
    }
  };
  const why = tryDir(preferred);
  if (why === null) return { dir: preferred, fallbackReason: null };
  const fallback = uid === 0 ? '/run/xrunhunt' : join(tmp, `xrunhunt-${uid}`);
  if (tryDir(fallback) === null) {
    return {
      dir: fallback,
      fallbackReason: `the journal folder ${preferred} is not writable (${why}); journaling in ${fallback} instead ("xrunhunt debug restore" looks in the default folder: set XDG_STATE_HOME to make them agree)`,
    };
  }
  return { dir: preferred, fallbackReason: null };
}
