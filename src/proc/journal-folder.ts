// The one place that decides where settings journals live, for every command: `debug`,
// `session`, `watch`, `stress`. The preferred folder is defaultJournalDir(); when it cannot be
// written (a read-only /var/lib: live systems, the lab guest; a read-only home) the journal goes
// to a runtime folder instead — xrun_debug does not survive a reboot, so a tmpfs journal still
// covers a kill -9. Readers (`debug status/restore`, the pending restore at every start) look
// in both, so a journal written to the fallback is never missed.
import * as nodeFs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultJournalDir } from './journal.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { judgeOwnership, lstatFacts } from './journal-trust.js';

/** Where root's journal goes when /var/lib is read-only: a tmpfs. */
export const ROOT_FALLBACK_JOURNAL_DIR = '/run/xrunhunt';

/** The runtime fallback folder for `uid` (root: /run/xrunhunt; others: <tmp>/xrunhunt-<uid>). */
export function fallbackJournalDir(uid: number, tmp: string): string {
  return uid === 0 ? ROOT_FALLBACK_JOURNAL_DIR : join(tmp, `xrunhunt-${uid}`);
}

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

/** Returns a writable journal folder: `preferred` if usable, else the runtime fallback. */
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
  const fallback = fallbackJournalDir(uid, tmp);
  if (tryDir(fallback) === null) {
    return {
      dir: fallback,
      fallbackReason: `the journal folder ${preferred} is not writable (${why}); journaling in ${fallback} instead ("xrunhunt debug restore" looks in both)`,
    };
  }
  return { dir: preferred, fallbackReason: null };
}

/** The journal folder a command writes to, and every folder a reader must look in. */
export interface JournalFolder {
  /** Where this run writes its journals. */
  dir: string;
  /** Why `dir` is not the preferred folder (print it as a note), or null. */
  fallbackReason: string | null;
  /** Why $XDG_STATE_HOME was ignored (root, a folder root does not own), or null. */
  ignoredXdgReason: string | null;
  /**
   * `dir` first, then the other folder a journal of this user may be in (preferred or
   * fallback); only `dir` when a usable $XDG_STATE_HOME pins it.
   */
  searchDirs: string[];
}

export interface JournalFolderContext {
  env: NodeJS.ProcessEnv;
  uid: number;
  home: string;
  tmp: string;
  fs?: Pick<typeof nodeFs, 'mkdirSync' | 'accessSync'>;
  /** TEST DOUBLE: the owner of XDG_STATE_HOME (replaces the lstat rule of rootStateHomeWhyNot). */
  ownerOf?: (path: string) => number | undefined;
}

/**
 * Why root must not keep journals under `xdg` (issue 30): judged on the folder itself with
 * lstat, never through a link: a folder, owned by root, writable by nobody else. Null: usable.
 */
export function rootStateHomeWhyNot(
  xdg: string,
  fs: Pick<typeof nodeFs, 'lstatSync'> = nodeFs,
): string | null {
  try {
    const facts = lstatFacts(xdg, fs);
    if (facts.kind === 'directory' && facts.uid !== 0)
      return `it belongs to uid ${facts.uid}, not root`;
    return judgeOwnership(facts, 'directory', 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'it does not exist'
      : `it cannot be examined (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
}

/** The single journal-folder resolver every command uses (issue 15). */
export function resolveJournalFolder(ctx: JournalFolderContext): JournalFolder {
  const xdgSet = (ctx.env['XDG_STATE_HOME'] ?? '') !== '';
  const legacyOwner = ctx.ownerOf;
  const whyNot =
    !xdgSet || ctx.uid !== 0
      ? null
      : legacyOwner
        ? ((o) =>
            o === 0
              ? null
              : o === undefined
                ? 'it does not exist'
                : `it belongs to uid ${o}, not root`)(legacyOwner(ctx.env['XDG_STATE_HOME']!))
        : rootStateHomeWhyNot(ctx.env['XDG_STATE_HOME']!);
  const ownerOf = (): number | undefined => (whyNot === null ? 0 : undefined);
  const preferred = defaultJournalDir(ctx.env, ctx.uid, ctx.home, ownerOf);
  const usable = usableJournalDir(preferred, ctx.uid, ctx.tmp, ctx.fs);
  const fallback = fallbackJournalDir(ctx.uid, ctx.tmp);
  // An XDG_STATE_HOME in use pins the folder (tests and scripts keep their journals apart);
  // otherwise a journal may be in either place, depending on what was writable when written.
  const xdg = ctx.env['XDG_STATE_HOME'] ?? '';
  const pinned = xdg !== '' && preferred === join(xdg, 'xrunhunt') && usable.dir === preferred;
  const searchDirs = pinned
    ? [usable.dir]
    : [usable.dir, ...[preferred, fallback].filter((d) => d !== usable.dir)];
  const ignoredXdgReason =
    whyNot === null
      ? null
      : `ignoring XDG_STATE_HOME=${quoteUntrusted(xdg)}: ${whyNot} (sudo -E keeps a user's environment; root's journals never live in a folder another user controls or a link can redirect)`;
  return { dir: usable.dir, fallbackReason: usable.fallbackReason, ignoredXdgReason, searchDirs };
}

/**
 * Kept for callers written before resolveJournalFolder: the folder a run writes to, with the
 * same rules (root ignores an XDG_STATE_HOME it does not own; unwritable → runtime fallback).
 * @deprecated use resolveJournalFolder (it also says where readers must look).
 */
export function resolveJournalDir(
  env: NodeJS.ProcessEnv,
  uid: number,
  home: string,
  tmp: string = tmpdir(),
): string {
  return resolveJournalFolder({ env, uid, home, tmp }).dir;
}
