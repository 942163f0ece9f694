// The settings journal on real files in a temp folder: durability order, journal-before-write,
// restore semantics, corrupt journals, owner liveness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JournalFs, JournalOwner } from './journal.js';
import {
  SettingsJournal,
  defaultJournalDir,
  isOwnerAlive,
  readJournalFile,
  readProcessStartTicks,
} from './journal.js';
import type { SettingFileIo } from './setting-file.js';
import { realSettingFileIo } from './setting-file.js';
import { XrunhuntError } from '../errors.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const d = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-journal-'));
  t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

const owner = (temporary = true): JournalOwner => ({
  pid: process.pid,
  startTicks: readProcessStartTicks(process.pid),
  startedAt: '2026-01-01T00:00:00.000Z',
  toolVersion: '0.0.0-test',
  command: 'test',
  temporary,
});

/** Wraps node:fs, logging the durability-relevant calls in order. */
function recordingFs(log: string[]): JournalFs {
  const fdNames = new Map<number, string>();
  return {
    ...fs,
    openSync: ((p: string, flags: string, mode?: number) => {
      const fd = fs.openSync(p, flags, mode);
      fdNames.set(fd, p);
      log.push(`open ${p.replace(/.*\//, '')} ${flags}`);
      return fd;
    }) as typeof fs.openSync,
    writeSync: ((fd: number, data: string) => {
      log.push(`write ${fdNames.get(fd)!.replace(/.*\//, '')}`);
      return fs.writeSync(fd, data);
    }) as typeof fs.writeSync,
    fsyncSync: (fd: number) => {
      log.push(`fsync ${fdNames.get(fd)!.replace(/.*\//, '')}`);
      fs.fsyncSync(fd);
    },
    renameSync: (a: fs.PathLike, b: fs.PathLike) => {
      log.push(`rename ${String(a).replace(/.*\//, '')} -> ${String(b).replace(/.*\//, '')}`);
      fs.renameSync(a, b);
    },
  };
}

test('record is durable: temp file written and fsynced, renamed, folder fsynced', (t) => {
  const dir = tempDir(t);
  const log: string[] = [];
  const j = SettingsJournal.open(join(dir, 'state', 'session-1.json'), owner(), {
    fs: recordingFs(log),
  });
  assert.equal(
    fs.existsSync(join(dir, 'state', 'session-1.json')),
    false,
    'nothing written before a change',
  );
  j.record('/proc/asound/card0/pcm0p/xrun_debug', '0', 'xrun_debug');
  const tmp = `session-1.json.tmp-${process.pid}`;
  assert.deepEqual(log, [
    `open ${tmp} w`,
    `write ${tmp}`,
    `fsync ${tmp}`,
    `rename ${tmp} -> session-1.json`,
    'open state r',
    'fsync state',
  ]);
  const doc = readJournalFile(join(dir, 'state', 'session-1.json'))!;
  assert.equal(doc.owner.pid, process.pid);
  assert.deepEqual(
    doc.entries.map((e) => [e.path, e.original, e.kind]),
    [['/proc/asound/card0/pcm0p/xrun_debug', '0', 'xrun_debug']],
  );
  assert.equal((fs.statSync(join(dir, 'state', 'session-1.json')).mode & 0o777).toString(8), '600');
});

test('set() journals the original on disk BEFORE it writes the setting', (t) => {
  const dir = tempDir(t);
  const setting = join(dir, 'xrun_debug');
  fs.writeFileSync(setting, '5\n');
  const file = join(dir, 'j.json');
  const seenAtWrite: (string | undefined)[] = [];
  const io: SettingFileIo = {
    read: realSettingFileIo.read,
    write(path, value) {
      seenAtWrite.push(readJournalFile(file)?.entries.find((e) => e.path === path)?.original);
      realSettingFileIo.write(path, value);
    },
  };
  const j = SettingsJournal.open(file, owner(), { io });
  j.set(setting, '3', { normalize: (s) => s.trim() });
  j.set(setting, '7'); // second change: the original stays 5
  assert.deepEqual(seenAtWrite, ['5', '5']);
  assert.equal(fs.readFileSync(setting, 'utf8'), '7');
  assert.equal(j.entries.length, 1);
});

test('restore writes back exactly the journaled values and deletes the journal', (t) => {
  const dir = tempDir(t);
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  fs.writeFileSync(a, '0\n');
  fs.writeFileSync(b, 'some text value\n');
  const file = join(dir, 'j.json');
  const j = SettingsJournal.open(file, owner());
  j.set(a, '3', { normalize: (s) => s.trim() });
  j.set(b, 'changed');
  const report = j.restore();
  assert.deepEqual(report.failed, []);
  assert.deepEqual(
    report.restored.map((r) => r.path),
    [b, a],
    'newest first',
  );
  assert.equal(fs.readFileSync(a, 'utf8'), '0');
  assert.equal(fs.readFileSync(b, 'utf8'), 'some text value\n');
  assert.equal(fs.existsSync(file), false);
});

test('restore failures are reported, not thrown; failed entries stay, vanished files are dropped', (t) => {
  const dir = tempDir(t);
  const ok = join(dir, 'ok');
  const gone = join(dir, 'gone');
  const blocked = join(dir, 'blocked');
  for (const p of [ok, gone, blocked]) fs.writeFileSync(p, '1');
  const file = join(dir, 'j.json');
  const j = SettingsJournal.open(file, owner());
  for (const p of [ok, gone, blocked]) j.set(p, '3');
  fs.rmSync(gone);
  fs.rmSync(blocked);
  fs.mkdirSync(blocked); // a directory where the setting was: EISDIR on write, even for root
  const report = j.restore();
  assert.deepEqual(
    report.restored.map((r) => r.path),
    [ok],
  );
  assert.deepEqual(report.gone, [gone]);
  assert.equal(report.failed.length, 1);
  assert.equal(report.failed[0]!.path, blocked);
  assert.match(report.failed[0]!.error, /is a directory/);
  assert.deepEqual(
    readJournalFile(file)!.entries.map((e) => e.path),
    [blocked],
  );
});

test('custom restorers per kind (for tracefs owners)', (t) => {
  const dir = tempDir(t);
  const f = join(dir, 'kprobe_events');
  fs.writeFileSync(f, '');
  const j = SettingsJournal.open(join(dir, 'j.json'), owner());
  j.record(f, 'p:xrunhunt/xrun __snd_pcm_xrun', 'kprobe');
  const calls: string[] = [];
  const report = j.restore({
    kprobe: (e) => calls.push(`-:${e.original.split(' ')[0]!.slice(2)}`),
  });
  assert.deepEqual(calls, ['-:xrunhunt/xrun']);
  assert.equal(report.restored.length, 1);
});

test('a corrupt or future journal is a clear error naming the file', (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'j.json');
  fs.writeFileSync(file, '{ not json');
  assert.throws(
    () => readJournalFile(file),
    (e: unknown) => e instanceof XrunhuntError && e.code === 'format' && e.message.includes(file),
  );
  fs.writeFileSync(
    file,
    JSON.stringify({
      format: 'xrunhunt-settings-journal',
      version: 99,
      owner: { pid: 1 },
      entries: [],
    }),
  );
  assert.throws(() => readJournalFile(file), /journal version 99 is not supported/);
  assert.equal(readJournalFile(join(dir, 'absent.json')), undefined);
});

test('owner liveness: this process yes; an exited child no; a reused pid (other start time) no', () => {
  assert.ok(isOwnerAlive(owner()));
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], {
    encoding: 'utf8',
  });
  const deadPid = Number(child.stdout.trim());
  assert.equal(isOwnerAlive({ ...owner(), pid: deadPid }), false);
  assert.equal(isOwnerAlive({ ...owner(), startTicks: owner().startTicks! + 1 }), false);
});

test('journal folder: XDG_STATE_HOME, then /var/lib for root, then ~/.local/state', () => {
  const ownedBy = (uid: number) => () => uid;
  assert.equal(defaultJournalDir({ XDG_STATE_HOME: '/x' }, 0, '/root', ownedBy(0)), '/x/xrunhunt');
  assert.equal(defaultJournalDir({}, 0, '/root'), '/var/lib/xrunhunt');
  assert.equal(
    defaultJournalDir({ XDG_STATE_HOME: '' }, 1000, '/home/u'),
    '/home/u/.local/state/xrunhunt',
  );
  assert.equal(
    defaultJournalDir({ XDG_STATE_HOME: '/x' }, 1000, '/home/u', ownedBy(0)),
    '/x/xrunhunt',
    'a user may name any folder of their own: only root is protected from it',
  );
});

test("root ignores an XDG_STATE_HOME it does not own (sudo -E keeps the user's)", () => {
  assert.equal(
    defaultJournalDir({ XDG_STATE_HOME: '/home/u/.local/state' }, 0, '/root', () => 1000),
    '/var/lib/xrunhunt',
  );
  assert.equal(
    defaultJournalDir({ XDG_STATE_HOME: '/gone' }, 0, '/root', () => undefined),
    '/var/lib/xrunhunt',
  );
});

test('paths are journaled absolute: a restore from another folder still finds them', (t) => {
  const dir = tempDir(t);
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    fs.writeFileSync('setting', '1');
    const j = SettingsJournal.open(join(dir, 'j.json'), owner());
    j.set('setting', '3');
    assert.equal(j.has(join(dir, 'setting')), true);
    assert.deepEqual(
      readJournalFile(join(dir, 'j.json'))!.entries.map((e) => e.path),
      [join(dir, 'setting')],
    );
  } finally {
    process.chdir(cwd);
  }
  assert.deepEqual(SettingsJournal.load(join(dir, 'j.json'))!.restore().restored, [
    { path: join(dir, 'setting'), value: '1' },
  ]);
  assert.equal(fs.readFileSync(join(dir, 'setting'), 'utf8'), '1');
});

/**
 * A node:fs whose first access to a path matching `hit` runs `swap` right after it returns:
 * the window between a check by path and a second lookup by path (issue 30 item 2).
 */
function swappingFs(hit: (p: string) => boolean, swap: () => void): JournalFs {
  let done = false;
  const after = <A extends unknown[], R>(fn: (...a: A) => R) =>
    ((...a: A): R => {
      const r = fn(...a);
      if (!done && typeof a[0] === 'string' && hit(a[0])) {
        done = true;
        swap();
      }
      return r;
    }) as never;
  return {
    ...fs,
    lstatSync: after(fs.lstatSync),
    statSync: after(fs.statSync),
    openSync: after(fs.openSync),
  } as JournalFs;
}

const journalDoc = (command: string): string =>
  JSON.stringify({
    format: 'xrunhunt-settings-journal',
    version: 1,
    owner: { ...owner(false), command },
    entries: [],
  });

test('issue 30: the journal read is the file that was checked (swapped for a symlink in between)', (t) => {
  const d = tempDir(t);
  const jdir = join(d, 'j');
  fs.mkdirSync(jdir, { mode: 0o700 });
  const file = join(jdir, 'manual.json');
  fs.writeFileSync(file, journalDoc('original'), { mode: 0o600 });
  const planted = join(d, 'planted.json');
  fs.writeFileSync(planted, journalDoc('planted'), { mode: 0o666 });
  fs.chmodSync(planted, 0o666);
  const swapFs = swappingFs(
    (p) => p.endsWith('manual.json'),
    () => {
      fs.symlinkSync(planted, `${file}.swap`);
      fs.renameSync(`${file}.swap`, file);
    },
  );
  const doc = readJournalFile(file, swapFs);
  assert.equal(doc?.owner.command, 'original');
});

test('issue 30: the journal folder read is the folder that was checked (swapped in between)', (t) => {
  const d = tempDir(t);
  const jdir = join(d, 'j');
  fs.mkdirSync(jdir, { mode: 0o700 });
  const file = join(jdir, 'manual.json');
  fs.writeFileSync(file, journalDoc('original'), { mode: 0o600 });
  const evil = join(d, 'evil');
  fs.mkdirSync(evil);
  fs.chmodSync(evil, 0o777);
  fs.writeFileSync(join(evil, 'manual.json'), journalDoc('planted'), { mode: 0o600 });
  const swapFs = swappingFs(
    (p) => p === jdir,
    () => {
      fs.renameSync(jdir, `${jdir}-old`);
      fs.symlinkSync(evil, jdir);
    },
  );
  const doc = readJournalFile(file, swapFs);
  assert.equal(doc?.owner.command, 'original');
});
