// Pure: which fleet store a --store value (or $XRUNHUNT_STORE) names. A postgres:// or
// postgresql:// URL is checked here (host, port, database) so a typo is a clear error before
// any connection, and the password never appears in a message or a label.
import { UsageError } from '../errors.js';

export type StoreSpec =
  { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; label: string };

/** The URL with its password replaced by "***" (for messages, logs and JSON output). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // Unparseable: drop everything between "://" and the last "@" (a password may be there).
    return url.replace(/\/\/[^/]*@/, '//***@');
  }
}

/** Parses a PostgreSQL URL; a UsageError says what was expected and what was found. */
export function parsePostgresUrl(text: string, origin: string): { url: string; label: string } {
  const shown = redactUrl(text);
  const bad = (what: string): UsageError =>
    new UsageError(`invalid ${origin} "${shown}": ${what}`, {
      hint: 'expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, e.g. postgres://xrunhunt@db.example:5432/fleet (or a password in ~/.pgpass / $PGPASSWORD)',
    });
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw bad('not a URL');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw bad(`the scheme is "${u.protocol.replace(/:$/, '')}", expected postgres or postgresql`);
  }
  const socketHost = u.searchParams.get('host');
  if (!u.hostname && !socketHost) throw bad('no host (postgres://USER@HOST/DATABASE)');
  if (u.port && (Number(u.port) < 1 || Number(u.port) > 65535))
    throw bad(`port ${u.port} is out of range`);
  const db = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!db) throw bad('no database name after the host (…/DATABASE)');
  if (db.includes('/')) throw bad(`the database name "${db}" contains "/"`);
  return { url: text, label: redactUrl(text) };
}

/**
 * The store a command uses: --store (a postgres URL or an SQLite file path), else
 * $XRUNHUNT_STORE, else the --db/default SQLite file. Exists so every command picks the
 * same way and a URL is validated once.
 */
export function resolveStoreSpec(o: {
  store: string | undefined;
  env: NodeJS.ProcessEnv;
  sqlitePath: () => string;
}): StoreSpec {
  const fromFlag = o.store !== undefined && o.store !== '';
  const text = fromFlag ? o.store : o.env['XRUNHUNT_STORE'];
  const origin = fromFlag ? '--store' : '$XRUNHUNT_STORE';
  if (text === undefined || text === '') return { kind: 'sqlite', path: o.sqlitePath() };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
    return { kind: 'postgres', ...parsePostgresUrl(text, origin) };
  if (/^(sqlite|file):/i.test(text))
    return { kind: 'sqlite', path: text.replace(/^(sqlite|file):(\/\/)?/i, '') };
  return { kind: 'sqlite', path: text };
}
