// The one journal-folder resolver: preferred folder, runtime fallback, and the folders a reader
// searches (so `debug restore` finds a journal a session wrote to the fallback).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveJournalFolder, usableJournalDir } from './journal-folder.js';
import { usableJournalDir as sessionUsableJournalDir } from '../session/journal-dir.js';

// MOCK fs: everything under /ro fails like a read-only mount (EROFS); the rest is real.
function readOnlyUnder(prefix: string): Pick<typeof fs, 'mkdirSync' | 'accessSync'> {
  return {
    mkdirSync: ((p: string, o: { mode: number }) => {
      if (p === prefix || p.startsWith(`${prefix}/`))
        throw Object.assign(new Error('EROFS'), { code: 'EROFS' });
      return fs.mkdirSync(p, o);
    }) as typeof fs.mkdirSync,
    accessSync: fs.accessSync,
  };
}

test('a user whose state folder is read-only journals in <tmp>/xrunhunt-<uid>, and readers search both', (t) => {
  const tmp = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-jfolder-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const f = resolveJournalFolder({
    env: { XDG_STATE_HOME: '/ro/state' },
    uid: 1000,
    home: '/home/u',
    tmp,
    fs: readOnlyUnder('/ro'),
  });
  assert.equal(f.dir, join(tmp, 'xrunhunt-1000'));
  assert.match(f.fallbackReason ?? '', /\/ro\/state\/xrunhunt is not writable \(EROFS\)/);
  assert.deepEqual(f.searchDirs, [join(tmp, 'xrunhunt-1000'), '/ro/state/xrunhunt']);
});

test('root with a writable XDG_STATE_HOME of its own: that folder alone (it pins the journals)', (t) => {
  const base = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-jfolder-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  const f = resolveJournalFolder({
    env: { XDG_STATE_HOME: base },
    uid: 0,
    home: '/root',
    tmp: base,
    ownerOf: () => 0,
  });
  assert.equal(f.dir, join(base, 'xrunhunt'));
  assert.equal(f.fallbackReason, null);
  assert.equal(f.ignoredXdgReason, null);
  assert.deepEqual(f.searchDirs, [join(base, 'xrunhunt')]);
});

test('root without XDG_STATE_HOME: /var/lib/xrunhunt, and readers also search /run/xrunhunt', (t) => {
  const base = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-jfolder-'));
  t.after(() => fs.rmSync(base, { recursive: true, force: true }));
  // MOCK fs: records instead of creating /var/lib/xrunhunt on this machine
  const made: string[] = [];
  const f = resolveJournalFolder({
    env: {},
    uid: 0,
    home: '/root',
    tmp: base,
    fs: {
      mkdirSync: ((p: string) => void made.push(p)) as typeof fs.mkdirSync,
      accessSync: () => undefined,
    },
  });
  assert.equal(f.dir, '/var/lib/xrunhunt');
  assert.deepEqual(f.searchDirs, ['/var/lib/xrunhunt', '/run/xrunhunt']);
  assert.ok(made.includes('/var/lib/xrunhunt'));
});

test('root: an XDG_STATE_HOME owned by another user is not used', () => {
  const f = resolveJournalFolder({
    env: { XDG_STATE_HOME: '/home/u/.local/state' },
    uid: 0,
    home: '/root',
    tmp: '/tmp',
    ownerOf: () => 1000,
    fs: readOnlyUnder('/var'),
  });
  assert.notEqual(f.dir, '/home/u/.local/state/xrunhunt');
  assert.match(
    f.ignoredXdgReason ?? '',
    /^ignoring XDG_STATE_HOME=\/home\/u\/\.local\/state: it belongs to uid 1000, not root/,
  );
  assert.equal(f.dir, '/run/xrunhunt');
  assert.ok(!f.searchDirs.includes('/home/u/.local/state/xrunhunt'));
});

test('session/journal-dir.ts keeps usableJournalDir as the same function', () => {
  assert.equal(sessionUsableJournalDir, usableJournalDir);
});

const rootOnly = process.geteuid?.() !== 0 ? 'needs root: the folders must be root-owned' : false;

test(
  'issue 30: root ignores an XDG_STATE_HOME that is a symlink, even to a folder root owns',
  { skip: rootOnly },
  (t) => {
    const base = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-jfolder-'));
    t.after(() => fs.rmSync(base, { recursive: true, force: true }));
    fs.mkdirSync(join(base, 'real'), { mode: 0o755 });
    fs.symlinkSync(join(base, 'real'), join(base, 'link'));
    const f = resolveJournalFolder({
      env: { XDG_STATE_HOME: join(base, 'link') },
      uid: 0,
      home: '/root',
      tmp: base,
      fs: readOnlyUnder('/var'),
    });
    assert.notEqual(f.dir, join(base, 'link', 'xrunhunt'));
    assert.match(f.ignoredXdgReason ?? '', /ignoring XDG_STATE_HOME=.*link: it is a symbolic link/);
  },
);

test(
  'issue 30: root ignores an XDG_STATE_HOME it owns that others can write (a /tmp)',
  { skip: rootOnly },
  (t) => {
    const base = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-jfolder-'));
    t.after(() => fs.rmSync(base, { recursive: true, force: true }));
    const open = join(base, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o1777);
    const f = resolveJournalFolder({
      env: { XDG_STATE_HOME: open },
      uid: 0,
      home: '/root',
      tmp: base,
      fs: readOnlyUnder('/var'),
    });
    assert.notEqual(f.dir, join(open, 'xrunhunt'));
    assert.match(f.ignoredXdgReason ?? '', /it is writable by every user/);
  },
);
