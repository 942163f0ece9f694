import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cleanStaleFolders,
  createWorkFolder,
  isOwnerAlive,
  LOCK_FILE,
  parseProcStartTime,
  removeWorkFolder,
} from './work-folder.js';

test('the start time is field 22 of /proc/pid/stat, also when comm holds spaces and parens', () => {
  const stat =
    '1234 (my (odd) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654 12345678 100';
  assert.equal(parseProcStartTime(stat), 987654);
});

test('a work folder carries a lock naming this live process and is removed whole', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'xrh-wf-'));
  try {
    const dir = await createWorkFolder(parent, 'write');
    assert.match(dir, /xrunhunt-load-write-/);
    const lock = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'));
    assert.equal(lock.pid, process.pid);
    assert.equal(await isOwnerAlive(lock), true);
    assert.equal(
      await isOwnerAlive({ ...lock, startTime: lock.startTime + 1 }),
      false,
      'reused PID',
    );
    await writeFile(join(dir, 'x'), 'data');
    await removeWorkFolder(dir);
    assert.deepEqual(await readdir(parent), []);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test('only folders of dead owners (and old lockless ones) are cleaned; others are left alone', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'xrh-wf-'));
  try {
    const live = await createWorkFolder(parent, 'cpu');
    const dead = await createWorkFolder(parent, 'fsync');
    const deadLock = { pid: 999_999_999, kind: 'fsync', createdAt: '' };
    await writeFile(join(dead, LOCK_FILE), JSON.stringify(deadLock));
    const fresh = join(parent, 'xrunhunt-load-write-fresh');
    const old = join(parent, 'xrunhunt-load-write-old');
    const foreign = join(parent, 'not-ours');
    for (const d of [fresh, old, foreign]) await mkdir(d);
    const longAgo = new Date(Date.now() - 3_600_000);
    await utimes(old, longAgo, longAgo);
    const cleaned = await cleanStaleFolders(parent);
    assert.deepEqual(
      cleaned.map((c) => [c.path, c.pid]).sort(),
      [
        [dead, 999_999_999],
        [old, 0],
      ].sort(),
    );
    assert.deepEqual(
      (await readdir(parent)).sort(),
      [live, fresh, foreign].map((p) => p.slice(parent.length + 1)).sort(),
    );
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
