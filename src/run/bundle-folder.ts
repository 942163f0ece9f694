// Which folder a run's files go to. `--out DIR` names a folder the user may already keep
// things in (`session --json > DIR/o` puts `o` there before xrunhunt starts), and a run
// replaces and scrubs the files it writes: so a new or empty DIR is used as it is, and a DIR
// that already holds anything gets a fresh subfolder of its own. A run never writes over,
// scrubs or removes a file it did not create.
import { mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode, errorMessage, XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

/** The folder a run owns, and whether it is a subfolder of the one asked for. */
export interface ClaimedFolder {
  dir: string;
  /** The --out folder as given (resolved). */
  asked: string;
  /** True when `asked` already held files and `dir` is a new folder inside it. */
  inside: boolean;
  /** True when this claim made `dir` (so it may remove it again while it is empty). */
  created: boolean;
}

/** How many numbered names (`NAME-2` …) are tried when NAME exists already. */
const MAX_SUFFIX = 100;

/**
 * Claims `asked` for a run: created when missing, used when empty, or a new `subName` folder
 * created inside it (exclusively, `-2`, `-3` … on a clash) when it holds anything.
 */
export function claimBundleFolder(asked: string, subName: string): ClaimedFolder {
  const where = quoteUntrusted(asked);
  let entries: string[] | null = null;
  try {
    if (!statSync(asked).isDirectory())
      throw new XrunhuntError('input', `--out ${where}: expected a folder, found a file`, {
        hint: 'name a new or empty folder (or leave --out out for ./xrunhunt-<date>-<time>/)',
      });
    entries = readdirSync(asked);
  } catch (err) {
    if (err instanceof XrunhuntError) throw err;
    if (errnoCode(err) !== 'ENOENT') throw folderError(where, err);
  }
  if (entries === null || entries.length === 0) {
    try {
      mkdirSync(asked, { recursive: true });
    } catch (err) {
      throw folderError(where, err);
    }
    return { dir: asked, asked, inside: false, created: entries === null };
  }
  for (let n = 1; n <= MAX_SUFFIX; n++) {
    const dir = join(asked, n === 1 ? subName : `${subName}-${n}`);
    try {
      mkdirSync(dir);
      return { dir, asked, inside: true, created: true };
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw folderError(quoteUntrusted(dir), err);
    }
  }
  throw new XrunhuntError(
    'input',
    `--out ${where}: ${MAX_SUFFIX} folders named ${subName}… exist already`,
    {
      hint: 'name a new folder with --out',
    },
  );
}

function folderError(where: string, err: unknown): XrunhuntError {
  return new XrunhuntError(
    'input',
    `cannot create the bundle folder ${where}: ${quoteUntrusted(errorMessage(err))}`,
    { hint: 'name a folder you can write to with --out DIR', cause: err },
  );
}

/** The line a command prints when the run went into a subfolder (why the path is not DIR). */
export function claimedFolderNote(c: ClaimedFolder): string | null {
  return c.inside
    ? `--out ${quoteUntrusted(c.asked)} already holds files, which are left as they are; this run writes to ${quoteUntrusted(c.dir)}`
    : null;
}

/** Removes a claimed folder again when the run was refused before writing into it (empty only). */
export function releaseEmptyClaim(c: ClaimedFolder): void {
  if (!c.created) return;
  try {
    rmdirSync(c.dir);
  } catch {
    // not empty (something was written, keep it) or already gone
  }
}
