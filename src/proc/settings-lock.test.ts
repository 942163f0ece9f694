// The settings lock across real processes: a second run is refused with the holder's pid and
// command, a kill -9 frees it (the kernel drops an flock with its holder), re-entrant within a
// process, one lock file per proc root, and nothing left behind after release.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  acquireSettingsLock,
  acquireSettingsLockWaiting,
  holdsSettingsLock,
  parseLockHolder,
  settingsLockFile,
  settingsLockName,
} from './settings-lock.js';

const lockModule = fileURLToPath(new URL('./settings-lock.ts', import.meta.url));

function tempDir(t: { after(fn: () => void): void }): string {
  const d = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-lock-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Starts a process that takes the lock, says "held", and keeps it until killed. */
function holder(procRoot: string, lockDir: string) {
  const code = `import { acquireSettingsLock } from ${JSON.stringify(lockModule)};
acquireSettingsLock(${JSON.stringify(procRoot)}, 'session --phases idle:1h', { lockDir: ${JSON.stringify(lockDir)} });
process.stdout.write('held\\n');
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('held')) resolve();
    });
    child.on('exit', (c) => reject(new Error(`holder exited (${c}): ${err}`)));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, ready, exited };
}

test('a second process is refused naming the holder; after kill -9 the lock is free', async (t) => {
  const d = tempDir(t);
  const procRoot = join(d, 'proc');
  fs.mkdirSync(procRoot);
  const lockDir = join(d, 'locks');
  const h = holder(procRoot, lockDir);
  t.after(() => h.child.kill('SIGKILL'));
  await h.ready;
  assert.throws(
    () => acquireSettingsLock(procRoot, 'debug on', { lockDir }),
    (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `another xrunhunt \\(pid ${h.child.pid}, "session --phases idle:1h", started [^)]+\\) is changing kernel settings under ${procRoot}`,
        ),
      );
      return true;
    },
  );
  h.child.kill('SIGKILL');
  await h.exited;
  const lock = acquireSettingsLock(procRoot, 'debug on', { lockDir });
  const file = settingsLockFile(procRoot, { lockDir });
  assert.deepEqual(
    { ...parseLockHolder(fs.readFileSync(file, 'utf8')), startedAt: '' },
    { pid: process.pid, command: 'debug on', startedAt: '', procRoot },
  );
  lock.release();
  assert.equal(fs.existsSync(file), false, 'the lock file goes with the last release');
});

test('re-entrant within one process: released only when every holder has released', (t) => {
  const d = tempDir(t);
  const lockDir = join(d, 'locks');
  const a = acquireSettingsLock(d, 'session', { lockDir });
  const b = acquireSettingsLock(d, 'session part', { lockDir });
  a.release();
  a.release();
  assert.equal(holdsSettingsLock(d, { lockDir }), true, 'b still holds it');
  b.release();
  assert.equal(holdsSettingsLock(d, { lockDir }), false);
});

test('one lock per proc root: the real /proc has the system-wide name, fake trees their own', () => {
  assert.equal(settingsLockName('/proc'), 'settings.lock');
  const a = settingsLockName('/tmp/a/proc');
  assert.match(a, /^settings-[0-9a-f]{16}\.lock$/);
  assert.notEqual(a, settingsLockName('/tmp/b/proc'));
});

test('a lock folder or lock file that others could write is refused', (t) => {
  const d = tempDir(t);
  const lockDir = join(d, 'locks');
  fs.mkdirSync(lockDir, { mode: 0o700 });
  fs.chmodSync(lockDir, 0o777);
  assert.throws(
    () => acquireSettingsLock(d, 'x', { lockDir }),
    /refusing the lock folder .*locks: it is writable by every user/,
  );
  fs.chmodSync(lockDir, 0o700);
  const file = settingsLockFile(d, { lockDir });
  fs.symlinkSync('/etc/passwd', file);
  assert.throws(
    () => acquireSettingsLock(d, 'x', { lockDir }),
    /cannot open the settings lock .*: it is a symbolic link/,
  );
});

test('acquireSettingsLockWaiting: refuses at once with no wait; takes the lock once the holder is gone', async (t) => {
  const d = tempDir(t);
  const lockDir = join(d, 'locks');
  const h = holder(d, lockDir);
  t.after(() => h.child.kill('SIGKILL'));
  await h.ready;
  await assert.rejects(acquireSettingsLockWaiting(d, 'x', 0, { lockDir }), /another xrunhunt/);
  const waiting = acquireSettingsLockWaiting(d, 'x', 30_000, { lockDir });
  h.child.kill('SIGKILL');
  const lock = await waiting;
  assert.equal(holdsSettingsLock(d, { lockDir }), true);
  lock.release();
});

test('lock files of fake trees whose holder was killed are swept at the next acquire; held ones stay', async (t) => {
  const d = tempDir(t);
  const lockDir = join(d, 'locks');
  const killedRoot = join(d, 'killed');
  const liveRoot = join(d, 'live');
  const killed = holder(killedRoot, lockDir);
  const live = holder(liveRoot, lockDir);
  t.after(() => {
    killed.child.kill('SIGKILL');
    live.child.kill('SIGKILL');
  });
  await Promise.all([killed.ready, live.ready]);
  killed.child.kill('SIGKILL');
  await killed.exited;
  const stale = settingsLockFile(killedRoot, { lockDir });
  assert.equal(fs.existsSync(stale), true, 'a kill -9 leaves the file behind');
  acquireSettingsLock(join(d, 'third'), 'x', { lockDir }).release();
  assert.equal(fs.existsSync(stale), false);
  assert.equal(fs.existsSync(settingsLockFile(liveRoot, { lockDir })), true);
  assert.throws(() => acquireSettingsLock(liveRoot, 'x', { lockDir }), /another xrunhunt/);
});

const notRoot = process.geteuid?.() !== 0 ? 'needs root to mount a second procfs' : false;

/** Mounts with mount(8) at a new folder under `d`; the caller unmounts (in a finally). */
function mountAt(d: string, name: string, args: string[]): string {
  const dir = join(d, name);
  fs.mkdirSync(dir);
  const r = spawnSync('mount', [...args, dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, `mount ${args.join(' ')} ${dir}: ${r.stderr}`);
  return dir;
}

test(
  'issue 30: a second procfs mount (and a bind mount of /proc) shares the machine lock',
  { skip: notRoot },
  async (t) => {
    const d = tempDir(t);
    const lockDir = join(d, 'locks');
    const mounted: string[] = [];
    try {
      mounted.push(mountAt(d, 'proc2', ['-t', 'proc', 'proc']));
      mounted.push(mountAt(d, 'bound', ['--bind', '/proc']));
      const machine = settingsLockFile('/proc', { lockDir });
      assert.equal(settingsLockFile(mounted[0]!, { lockDir }), machine);
      assert.equal(settingsLockFile(mounted[1]!, { lockDir }), machine);
      // A run on the second mount is refused while a run on /proc holds the lock.
      const h = holder('/proc', lockDir);
      try {
        await h.ready;
        assert.throws(
          () => acquireSettingsLock(mounted[0]!, 'try --proc-root', { lockDir }),
          /another xrunhunt \(pid \d+/,
        );
      } finally {
        h.child.kill('SIGKILL');
        await h.exited;
      }
    } finally {
      for (const m of mounted.reverse()) spawnSync('umount', [m]);
    }
  },
);

test('issue 30: a real sysfs as the sys root takes the machine lock; a plain folder its own', (t) => {
  const d = tempDir(t);
  const lockDir = join(d, 'locks');
  const machine = settingsLockFile('/proc', { lockDir });
  assert.equal(settingsLockFile(d, { lockDir, sysRoot: '/sys' }), machine);
  assert.notEqual(settingsLockFile(d, { lockDir, sysRoot: d }), machine);
  assert.equal(settingsLockName('/tmp/x', 0x9fa0), 'settings.lock', 'PROC_SUPER_MAGIC');
  assert.equal(settingsLockName('/tmp/x', 0x62656572), 'settings.lock', 'SYSFS_MAGIC');
  assert.match(settingsLockName('/tmp/x', 0x01021994), /^settings-[0-9a-f]{16}\.lock$/, 'tmpfs');
});
