// A bad --html target is refused before any work, with what is really wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkReportTarget } from './write-report.js';

const tmp = mkdtempSync(join(tmpdir(), 'xrunhunt-report-target-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('writable targets pass; the kernel pseudo file systems, folders, pipes and missing folders do not', () => {
  checkReportTarget(join(tmp, 'new.html'));
  writeFileSync(join(tmp, 'old.html'), 'x');
  checkReportTarget(join(tmp, 'old.html'));
  assert.throws(
    () => checkReportTarget('/proc/version'),
    /\/proc is on the kernel's proc file system/,
  );
  assert.throws(() => checkReportTarget('/sys/kernel/new.html'), /sysfs file system/);
  mkdirSync(join(tmp, 'dir'));
  assert.throws(() => checkReportTarget(join(tmp, 'dir')), /it is a folder/);
  assert.throws(
    () => checkReportTarget(join(tmp, 'nope', 'r.html')),
    /its folder .*nope does not exist/,
  );
  assert.throws(() => checkReportTarget(join(tmp, 'old.html', 'r.html')), /is not a folder/);
  const fifo = join(tmp, 'fifo');
  if (spawnSync('mkfifo', [fifo]).status === 0) {
    assert.throws(() => checkReportTarget(fifo), /it is a named pipe/);
  }
});
