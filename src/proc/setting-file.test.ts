// The setting writer against planted symlinks and `..` (issue 30 item 1): every write opens the
// file with O_NOFOLLOW at its real path, and a symbolic link in a plain file system anywhere on
// the way is refused before anything is truncated or written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { realSettingFileIo } from './setting-file.js';

function bed(t: { after(fn: () => void): void }) {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-setting-'));
  t.after(() => rmSync(base, { recursive: true, force: true }));
  const pcm = join(base, 'proc', 'asound', 'card0', 'pcm0p');
  mkdirSync(pcm, { recursive: true });
  const victim = join(base, 'victim');
  writeFileSync(victim, 'precious\n');
  return { base, pcm, victim };
}

const refusedAsLink = (err: unknown): boolean =>
  err instanceof XrunhuntError && /symbolic link/.test(err.message) && err.hint !== undefined;

test('write refuses a symlinked setting file and leaves its target untouched', (t) => {
  const { pcm, victim } = bed(t);
  symlinkSync(victim, join(pcm, 'xrun_debug'));
  assert.throws(() => realSettingFileIo.write(join(pcm, 'xrun_debug'), '3'), refusedAsLink);
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
});

test('write refuses a path through a symlinked folder (a planted card0)', (t) => {
  const { base, victim } = bed(t);
  const elsewhere = join(base, 'elsewhere', 'pcm0p');
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(elsewhere, 'xrun_debug'), '0\n');
  rmSync(join(base, 'proc', 'asound', 'card0'), { recursive: true });
  symlinkSync(join(base, 'elsewhere'), join(base, 'proc', 'asound', 'card0'));
  const path = join(base, 'proc', 'asound', 'card0', 'pcm0p', 'xrun_debug');
  assert.throws(() => realSettingFileIo.write(path, '3'), refusedAsLink);
  assert.throws(() => realSettingFileIo.append!(path, '3'), refusedAsLink);
  assert.equal(readFileSync(join(elsewhere, 'xrun_debug'), 'utf8'), '0\n');
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
});

test('write refuses `..` components instead of resolving them', (t) => {
  const { pcm, victim } = bed(t);
  const dotted = `${pcm}/../../../../victim`;
  assert.throws(
    () => realSettingFileIo.write(dotted, '3'),
    (err: unknown) => err instanceof XrunhuntError && /"\.\."/.test(err.message),
  );
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
});

test('write still replaces the whole content of a plain file and never creates one', (t) => {
  const { pcm } = bed(t);
  const file = join(pcm, 'xrun_debug');
  writeFileSync(file, '12\n');
  realSettingFileIo.write(file, '3');
  assert.equal(readFileSync(file, 'utf8'), '3');
  realSettingFileIo.append!(file, '4');
  assert.equal(readFileSync(file, 'utf8'), '34');
  assert.throws(
    () => realSettingFileIo.write(join(pcm, 'absent'), '1'),
    (err: unknown) => err instanceof XrunhuntError && err.code === 'not-found',
  );
});

test('write refuses a plain file with a second name (a hard link to a file elsewhere)', (t) => {
  const { pcm, victim } = bed(t);
  linkSync(victim, join(pcm, 'xrun_debug'));
  assert.throws(
    () => realSettingFileIo.write(join(pcm, 'xrun_debug'), '3'),
    (err: unknown) => err instanceof XrunhuntError && /hard link/.test(err.message),
  );
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
});
