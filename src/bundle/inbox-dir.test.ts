import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { STALE_TEMP_MS, leftoverTempFiles, prepareInbox } from './inbox-dir.js';

const H = 'c'.repeat(64);

test('leftover temp files: dead writer, own pid from an earlier life, or stale; live writers kept', () => {
  const now = 10 * STALE_TEMP_MS;
  const alive = new Set([100, 200]);
  const files = [
    { name: `.${H}.json.gz.4242.0123abcd.tmp`, mtimeMs: now }, // dead pid
    { name: `.${H}.json.100.0123abcd.tmp`, mtimeMs: now }, // live other writer
    { name: `.${H}.json.200.0123abcd.tmp`, mtimeMs: now - STALE_TEMP_MS - 1 }, // live but stale
    { name: `.${H}.json.1.89abcdef.tmp`, mtimeMs: now }, // own pid (container pid 1)
    { name: `${H}.json.gz`, mtimeMs: 0 }, // a bundle
    { name: '.hidden', mtimeMs: 0 },
    { name: '.x.4242.nothex!.tmp', mtimeMs: 0 },
  ];
  assert.deepEqual(
    leftoverTempFiles(files, now, (pid) => alive.has(pid), 1),
    [files[0]!.name, files[2]!.name, files[3]!.name],
  );
});

test('prepareInbox creates a missing folder and refuses a file with a user error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrh-inbox-'));
  try {
    prepareInbox(join(dir, 'a', 'b'));
    assert.ok(statSync(join(dir, 'a', 'b')).isDirectory());
    prepareInbox(join(dir, 'a', 'b'));
    writeFileSync(join(dir, 'file'), 'x');
    assert.throws(
      () => prepareInbox(join(dir, 'file')),
      (e: unknown) =>
        e instanceof XrunhuntError && /expected a folder, found a regular file/.test(e.message),
    );
    assert.throws(
      () => prepareInbox(join(dir, 'file', 'inbox')),
      (e: unknown) => e instanceof XrunhuntError && /a part of the path is a file/.test(e.message),
    );
    assert.equal(existsSync(join(dir, 'file', 'inbox')), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
