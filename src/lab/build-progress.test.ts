import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyBuildLine, formatBuildProgress, startPhase } from './build-progress.js';

test('counts compiled objects from kbuild quiet output, not bookkeeping lines', () => {
  let s = startPhase('compile');
  for (const line of [
    '  SYNC    include/config/auto.conf',
    '  HOSTCC  scripts/basic/fixdep',
    '  CC      kernel/sched/core.o',
    '  AS      arch/x86/entry/entry_64.o',
    '  CC [M]  lib/test_lockup.o',
    'make[2]: Entering directory',
    '  LD [M]  lib/test_lockup.ko',
  ]) {
    s = applyBuildLine(s, line);
  }
  assert.equal(s.objects, 3);
  assert.equal(s.lastFile, 'lib/test_lockup.ko');
});

test('formats phase, count and elapsed time', () => {
  let s = startPhase('compile');
  s = applyBuildLine(s, '  CC      mm/filemap.o');
  assert.equal(formatBuildProgress(s, 125_400), '[2m05s] compile: 1 objects (mm/filemap.o)');
  assert.equal(formatBuildProgress(startPhase('extract'), 3000), '[0m03s] extract');
});

test('a new phase keeps the object count', () => {
  const s = applyBuildLine(startPhase('compile'), '  CC      a.o');
  assert.equal(startPhase('install', s).objects, 1);
});
