import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectInputPath, requireRegularFileWithin } from './input-path.js';
import { XrunhuntError } from '../errors.js';

const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-input-path-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a link to /dev/zero is a character device, found without reading it', () => {
  const link = join(dir, 'zero-link');
  symlinkSync('/dev/zero', link);
  assert.equal(inspectInputPath(link).kind, 'char-device');
  assert.throws(
    () => requireRegularFileWithin(inspectInputPath(link), 100, 'a bundle'),
    /found a character device/,
  );
});

test('a FIFO is recognised without opening it (which would block)', () => {
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  assert.equal(inspectInputPath(fifo).kind, 'fifo');
});

test('a regular file reports its size and is refused over the limit', () => {
  const f = join(dir, 'f');
  writeFileSync(f, 'x'.repeat(1000));
  const facts = inspectInputPath(f);
  assert.deepEqual([facts.kind, facts.sizeBytes], ['file', 1000]);
  requireRegularFileWithin(facts, 1000, 'a bundle');
  assert.throws(
    () => requireRegularFileWithin(facts, 999, 'a bundle'),
    /1000 bytes is larger than the 999-byte limit/,
  );
});

test('a missing path is a not-found user error with the path escaped', () => {
  assert.throws(
    () => inspectInputPath(join(dir, 'no\x1b[2Jsuch')),
    (err: unknown) =>
      err instanceof XrunhuntError && err.code === 'not-found' && err.message.includes('\\x1b[2J'),
  );
});
