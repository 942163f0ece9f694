// writeFileAtomic renames over its target: it must never turn a device node or a FIFO into a
// regular file (as root, `aggregate --html /dev/full` replaced /dev/full). A FIFO and a link to
// one stand in for devices here, so the test harms nothing even against unfixed code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from './write.js';

const tmp = mkdtempSync(join(tmpdir(), 'xrunhunt-atomic-target-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('a FIFO, or a link to one, is refused and stays what it was; regular files are replaced', async (t) => {
  const fifo = join(tmp, 'fifo');
  if (spawnSync('mkfifo', [fifo]).status !== 0) return t.skip('mkfifo unavailable');
  await assert.rejects(
    writeFileAtomic(fifo, Buffer.from('x')),
    /it is a named pipe \(FIFO\), not a regular file/,
  );
  assert.ok(lstatSync(fifo).isFIFO(), 'the FIFO was replaced');
  const link = join(tmp, 'link.html');
  symlinkSync(fifo, link);
  await assert.rejects(writeFileAtomic(link, Buffer.from('x')), /named pipe/);
  assert.ok(lstatSync(link).isSymbolicLink(), 'the link was replaced');
  assert.ok(statSync(link).isFIFO());
  const file = join(tmp, 'report.html');
  await writeFile(file, 'old');
  await writeFileAtomic(file, Buffer.from('new'));
  assert.equal(readFileSync(file, 'utf8'), 'new');
  await writeFileAtomic(join(tmp, 'fresh.html'), Buffer.from('n'));
  assert.equal(readFileSync(join(tmp, 'fresh.html'), 'utf8'), 'n');
});
