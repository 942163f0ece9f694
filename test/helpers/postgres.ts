// A throwaway PostgreSQL 15 cluster for tests: initdb + pg_ctl on a temp folder and a free
// port, run as the `postgres` system user when we are root (postgres refuses to run as root).
// Password authentication over TCP (scram) so tests exercise a real URL with a password.
// Outside CI a machine without PostgreSQL skips with a clear reason; in CI (CI=true) it fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian's postgresql-15 package puts initdb and pg_ctl. */
export const PG_BIN = process.env['XRUNHUNT_PG_BIN'] ?? '/usr/lib/postgresql/15/bin';

export interface TestPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres */
  url: string;
  password: string;
  port: number;
  dataDir: string;
  /** A fresh, empty database on this cluster; its URL. */
  createDatabase(name?: string): string;
  /** pg_ctl restart (fast shutdown, then start on the same port). */
  restart(): void;
  stop(): void;
  start(): void;
  /** Stops the cluster and removes its folder. */
  destroy(): void;
}

/** The `skip` option for node:test: a reason outside CI when PostgreSQL is absent, else false. */
export function postgresSkip(): string | false {
  if (existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_ctl'))) return false;
  if (process.env['CI'] === 'true') return false; // run, and fail loudly in startTestPostgres
  return `PostgreSQL 15 is not installed (${PG_BIN}/initdb missing): apt-get install postgresql, or run scripts/install-deps.sh`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts a new cluster; call destroy() when done (in an after() hook). */
export async function startTestPostgres(
  options: { durable?: boolean } = {},
): Promise<TestPostgres> {
  if (!existsSync(join(PG_BIN, 'initdb'))) {
    throw new Error(
      `PostgreSQL 15 is not installed (${PG_BIN}/initdb missing); CI must install it (scripts/install-deps.sh)`,
    );
  }
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'xrh-pg-'));
  const dataDir = join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  const pwFile = join(dir, 'pw');
  writeFileSync(pwFile, `${password}\n`);
  let uid = 0;
  let gid = 0;
  if (asRoot) {
    uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chownSync(pwFile, uid, gid);
  }
  chmodSync(dir, 0o700);
  const run = (bin: string, args: string[], check = true): void => {
    const cmd = asRoot ? 'runuser' : join(PG_BIN, bin);
    const argv = asRoot ? ['-u', 'postgres', '--', join(PG_BIN, bin), ...args] : args;
    const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir });
    if (check && r.status !== 0) {
      throw new Error(`${bin} ${args.join(' ')} failed: ${r.stderr || r.stdout}`);
    }
  };
  run('initdb', [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    `--pwfile=${pwFile}`,
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const port = await freePort();
  // Tests (not the benchmark) trade durability for speed: a clean restart loses nothing.
  const durability = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off';
  const pgOpts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${durability}`;
  const start = (): void =>
    run('pg_ctl', ['-D', dataDir, '-l', join(dir, 'log'), '-o', pgOpts, '-w', '-t', '60', 'start']);
  const stop = (): void => run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop'], false);
  start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  let n = 0;
  return {
    url,
    password,
    port,
    dataDir,
    createDatabase(name?: string): string {
      const db = name ?? `t${process.pid}_${++n}`;
      run('psql', ['-h', dir, '-p', String(port), '-U', 'postgres', '-c', `CREATE DATABASE ${db}`]);
      return `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
    },
    restart(): void {
      stop();
      start();
    },
    stop,
    start,
    destroy(): void {
      stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
