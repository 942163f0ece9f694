// Where the fleet store and watched inboxes live, and what may be created for them: the default folder
// ($XDG_DATA_HOME/xrunhunt/) is xrunhunt's own and is created; a --db the user named must be
// in a folder that exists, so a typo like --db /nonexistent/x.db never creates /nonexistent/.
import * as nodeFs from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { XrunhuntError, errnoCode } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

/** Default store: $XDG_DATA_HOME/xrunhunt/fleet.db or ~/.local/share/xrunhunt/fleet.db. */
export function defaultFleetDb(env: NodeJS.ProcessEnv): string {
  const data = env['XDG_DATA_HOME'] || join(env['HOME'] || homedir(), '.local', 'share');
  return join(data, 'xrunhunt', 'fleet.db');
}

/**
 * Makes sure the store's folder is there before SQLite opens the file: created for the
 * default location, required to exist (and be a folder) for one the user named.
 */
export function prepareFleetDbFolder(
  dbPath: string,
  named: boolean,
  fs: Pick<typeof nodeFs, 'statSync' | 'mkdirSync'> = nodeFs,
): void {
  if (dbPath === ':memory:') return;
  const dir = dirname(dbPath);
  if (!named) {
    fs.mkdirSync(dir, { recursive: true });
    return;
  }
  let isDir: boolean;
  try {
    isDir = fs.statSync(dir).isDirectory();
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT' && errnoCode(err) !== 'ENOTDIR') {
      throw new XrunhuntError(
        'permission',
        `--db ${quoteUntrusted(dbPath)}: cannot look at ${quoteUntrusted(dir)} (${errnoCode(err) ?? String(err)})`,
      );
    }
    throw new XrunhuntError(
      'not-found',
      `--db ${quoteUntrusted(dbPath)}: the folder ${quoteUntrusted(dir)} does not exist`,
      { hint: 'create it first (mkdir -p), or leave out --db for the default store' },
    );
  }
  if (!isDir) {
    throw new XrunhuntError(
      'input',
      `--db ${quoteUntrusted(dbPath)}: ${quoteUntrusted(dir)} is not a folder`,
    );
  }
}

/** Creates a watched inbox that does not exist yet (serve makes it later), one level only. */
export function prepareInboxFolder(
  inbox: string,
  fs: Pick<typeof nodeFs, 'statSync' | 'mkdirSync'> = nodeFs,
): void {
  try {
    if (fs.statSync(inbox).isDirectory()) return;
    throw new XrunhuntError('input', `inbox ${quoteUntrusted(inbox)}: is not a folder`);
  } catch (err) {
    if (err instanceof XrunhuntError) throw err;
    if (errnoCode(err) !== 'ENOENT') {
      throw new XrunhuntError(
        'input',
        `inbox ${quoteUntrusted(inbox)}: cannot be examined (${errnoCode(err) ?? String(err)})`,
      );
    }
  }
  try {
    fs.mkdirSync(inbox);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') {
      throw new XrunhuntError(
        'not-found',
        `inbox ${quoteUntrusted(inbox)}: its parent folder ${quoteUntrusted(dirname(inbox))} does not exist`,
        { hint: 'create the parent first; --watch creates only the inbox folder itself' },
      );
    }
    if (errnoCode(err) !== 'EEXIST') {
      throw new XrunhuntError(
        'permission',
        `inbox ${quoteUntrusted(inbox)}: cannot be created (${errnoCode(err) ?? String(err)})`,
      );
    }
  }
}
