// The folder a run claims for --out: new or empty folders as they are, a folder that holds
// the user's files gets a fresh subfolder, and the user's files are never touched.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimBundleFolder, claimedFolderNote, releaseEmptyClaim } from './bundle-folder.js';
import { XrunhuntError } from '../errors.js';

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-claim-'));
after(() => rmSync(work, { recursive: true, force: true }));

test('a missing folder is created (parents too) and an empty one is used as it is', () => {
  const missing = join(work, 'a', 'b');
  assert.deepEqual(claimBundleFolder(missing, 'xrunhunt-x'), {
    dir: missing,
    asked: missing,
    inside: false,
    created: true,
  });
  assert.deepEqual(readdirSync(missing), []);
  const c = claimBundleFolder(missing, 'xrunhunt-x');
  assert.equal(c.dir, missing);
  assert.equal(c.created, false);
  assert.equal(claimedFolderNote(c), null);
});

test("a refused run gives back only an empty folder it made: never the user's, never one with files", () => {
  const users = join(work, 'users-empty');
  mkdirSync(users);
  releaseEmptyClaim(claimBundleFolder(users, 'xrunhunt-x'));
  assert.deepEqual(readdirSync(users), [], "the user's own empty folder stays");
  const made = join(work, 'made');
  releaseEmptyClaim(claimBundleFolder(made, 'xrunhunt-x'));
  assert.throws(() => readdirSync(made), /ENOENT/);
  const written = claimBundleFolder(join(work, 'written'), 'xrunhunt-x');
  writeFileSync(join(written.dir, 'events.jsonl'), '{}\n');
  releaseEmptyClaim(written);
  assert.deepEqual(readdirSync(written.dir), ['events.jsonl']);
});

test('a folder that holds files gets a new subfolder each time; its files stay as they were', () => {
  const dir = join(work, 'mine');
  mkdirSync(dir);
  writeFileSync(join(dir, 'o'), 'my notes\n');
  const first = claimBundleFolder(dir, 'xrunhunt-x');
  assert.equal(first.dir, join(dir, 'xrunhunt-x'));
  assert.ok(first.inside);
  assert.match(claimedFolderNote(first)!, /already holds files.*xrunhunt-x/);
  assert.equal(claimBundleFolder(dir, 'xrunhunt-x').dir, join(dir, 'xrunhunt-x-2'));
  assert.equal(claimBundleFolder(dir, 'xrunhunt-x').dir, join(dir, 'xrunhunt-x-3'));
  assert.equal(readFileSync(join(dir, 'o'), 'utf8'), 'my notes\n');
});

test('a file where the folder should be is a clear error', () => {
  const file = join(work, 'file');
  writeFileSync(file, 'x');
  assert.throws(
    () => claimBundleFolder(file, 'xrunhunt-x'),
    (e: unknown) => e instanceof XrunhuntError && /expected a folder, found a file/.test(e.message),
  );
});
