// The lifecycle's order, with recording probes: rtla's stages, restore newest first in one
// finally (also when apply or run throws), only for probes whose apply was entered, a failing
// restore contained as a warning, analysis after the machine is back.
import { after, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { runLifecycle } from './lifecycle.js';
import { holdsSettingsLock } from '../proc/index.js';
import type { RunContext, RunProbe } from './probe.js';
import { createRunNotes } from './run-notes.js';

// No journals in an empty folder: nothing left by a killed run.
const fakeProc = mkdtempSync(join(tmpdir(), 'xrunhunt-lifecycle-proc-'));
const leftovers = {
  journalDir: mkdtempSync(join(tmpdir(), 'xrunhunt-lifecycle-')),
  roots: { procRoot: fakeProc, sysRoot: fakeProc, bootRoot: fakeProc },
  stderr: new PassThrough(),
  stdin: new PassThrough(),
  interactive: false,
};
after(() => {
  rmSync(leftovers.journalDir, { recursive: true, force: true });
  rmSync(fakeProc, { recursive: true, force: true });
});

function context(): RunContext {
  const ctl = new AbortController();
  return {
    t0: 0n,
    elapsed: () => 0,
    stop: ctl.signal,
    requestStop: () => ctl.abort(),
    notes: createRunNotes({
      emitWarning: () => undefined,
      progress: false,
      stderr: new PassThrough(),
    }),
  };
}

function probe(
  name: string,
  log: string[],
  fail: { apply?: boolean; restore?: boolean } = {},
): RunProbe {
  return {
    name,
    init: () => void log.push(`${name}.init`),
    apply: () => {
      log.push(`${name}.apply`);
      if (fail.apply) throw new Error(`${name} cannot apply`);
    },
    run: () => void log.push(`${name}.run`),
    collect: () => void log.push(`${name}.collect`),
    restore: () => {
      log.push(`${name}.restore`);
      if (fail.restore) throw new Error(`${name} cannot restore`);
    },
  };
}

const stages = (log: string[], runFails = false) => ({
  init: () => void log.push('init'),
  beforeApply: () => void log.push('leftovers'),
  afterApply: (p: RunProbe) => void log.push(`after ${p.name}`),
  run: async () => {
    log.push('run');
    if (runFails) throw new Error('run failed');
  },
  analyze: async () => {
    log.push('analyze');
    return 'result';
  },
});

test('init → apply settings → run → collect (reverse) → restore (reverse) → analyze', async () => {
  const log: string[] = [];
  const r = await runLifecycle(
    context(),
    leftovers,
    [probe('a', log), probe('b', log)],
    stages(log),
  );
  assert.equal(r, 'result');
  assert.deepEqual(log, [
    'a.init',
    'b.init',
    'init',
    'leftovers',
    'a.apply',
    'after a',
    'b.apply',
    'after b',
    'a.run',
    'b.run',
    'run',
    'b.collect',
    'a.collect',
    'b.restore',
    'a.restore',
    'analyze',
  ]);
});

test('an apply that throws: only the probes entered are restored, nothing collected or analysed', async () => {
  const log: string[] = [];
  await assert.rejects(
    runLifecycle(
      context(),
      leftovers,
      [probe('a', log), probe('b', log, { apply: true }), probe('c', log)],
      stages(log),
    ),
    /b cannot apply/,
  );
  assert.deepEqual(log.slice(log.indexOf('leftovers')), [
    'leftovers',
    'a.apply',
    'after a',
    'b.apply',
    'b.restore',
    'a.restore',
  ]);
});

test('a run that throws still restores everything; a failing restore is a warning, the rest still restored', async () => {
  const log: string[] = [];
  const ctx = context();
  await assert.rejects(
    runLifecycle(
      ctx,
      leftovers,
      [probe('a', log), probe('b', log, { restore: true })],
      stages(log, true),
    ),
    /run failed/,
  );
  assert.deepEqual(log.slice(log.indexOf('run')), ['run', 'b.restore', 'a.restore']);
  assert.deepEqual(ctx.notes.warnings, ['b: restoring failed: b cannot restore']);
});

test('the settings lock is held from apply to the end of restore, and released when the run throws', async () => {
  const seen: string[] = [];
  const watcher = (name: string): RunProbe => ({
    name,
    apply: () => void seen.push(`${name}.apply locked=${holdsSettingsLock(fakeProc)}`),
    restore: () => void seen.push(`${name}.restore locked=${holdsSettingsLock(fakeProc)}`),
  });
  assert.equal(holdsSettingsLock(fakeProc), false);
  await assert.rejects(
    runLifecycle(context(), leftovers, [watcher('a')], stages([], true)),
    /run failed/,
  );
  assert.deepEqual(seen, ['a.apply locked=true', 'a.restore locked=true']);
  assert.equal(holdsSettingsLock(fakeProc), false);
  // And a following run takes it again.
  await runLifecycle(context(), leftovers, [watcher('b')], stages([]));
  assert.equal(holdsSettingsLock(fakeProc), false);
});
