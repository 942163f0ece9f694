// The one xrun_debug guard of session and watch, on fake /proc trees: several streams at
// once, the stack-dump bit toggled mid-run, restore exactly once, a live other run fatal,
// a failing write returned (the run goes on without kernel dumps).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeSystem, dummyCard, hdaCard } from '../../test/helpers/fake-proc.js';
import {
  SettingsJournal,
  discoverAsound,
  readProcessStartTicks,
  realSettingFileIo,
  sessionJournalFile,
} from '../proc/index.js';
import { guardedPcms, restoreXrunDebugReporting, takeXrunDebug } from './xrun-debug-guard.js';

function setup(t: { after(fn: () => void): void }) {
  const fake = createFakeSystem({ cards: [dummyCard({}, 0), hdaCard({}, 1)] });
  const journalDir = mkdtempSync(join(tmpdir(), 'xrunhunt-guard-'));
  t.after(() => {
    fake.cleanup();
    rmSync(journalDir, { recursive: true, force: true });
  });
  const all = discoverAsound(fake.procRoot).streams;
  const playback = all.filter((s) => s.pcm === 'pcmC0D0p' || s.pcm === 'pcmC1D0p');
  const masks = (): string[] =>
    playback.map((s) => fake.readProc(s.xrunDebugPath!.slice(fake.procRoot.length + 1)).trim());
  return { journalDir, playback, masks };
}

const opts = (journalDir: string) => ({ journalDir, toolVersion: 't', command: 'watch' });

test('sets every stream, toggles the stack bit, restores each original exactly once', (t) => {
  const { journalDir, playback, masks } = setup(t);
  const took = takeXrunDebug(playback, 1, opts(journalDir));
  assert.ok(took.ok);
  const guard = took.guard;
  assert.deepEqual(masks(), ['1', '1']);
  assert.equal(guardedPcms(guard), 'pcmC0D0p,pcmC1D0p');
  guard.setStackDumps(true);
  assert.equal(guard.mask, 3);
  assert.deepEqual(masks(), ['3', '3']);
  guard.setStackDumps(false);
  assert.equal(guard.mask, 1);
  const said: string[] = [];
  restoreXrunDebugReporting(guard, {
    warn: (m) => said.push(`warn ${m}`),
    note: (m) => said.push(m),
  });
  assert.deepEqual(masks(), ['0', '1'], 'each back to its own original');
  assert.equal(said.length, 1);
  assert.match(
    said[0]!,
    /^restored .*card1\/pcm0p\/xrun_debug = 1; restored .*card0\/pcm0p\/xrun_debug = 0$/,
    'newest first',
  );
  assert.equal(guard.restore(), guard.restore(), 'idempotent');
  guard.setMask(3);
  assert.deepEqual(masks(), ['0', '1'], 'no change after restore');
  assert.equal(existsSync(sessionJournalFile(journalDir, process.pid)), false);
});

test('another live xrunhunt on one of the files: thrown, nothing changed', (t) => {
  const { journalDir, playback, masks } = setup(t);
  const sleeper = spawn('sleep', ['30']);
  t.after(() => sleeper.kill('SIGKILL'));
  const pid = sleeper.pid!;
  SettingsJournal.open(sessionJournalFile(journalDir, pid), {
    pid,
    startTicks: readProcessStartTicks(pid),
    startedAt: new Date().toISOString(),
    toolVersion: 't',
    command: 'session',
    temporary: true,
  }).record(playback[1]!.xrunDebugPath!, '1', 'xrun_debug');
  assert.throws(
    () => takeXrunDebug(playback, 3, opts(journalDir)),
    /another xrunhunt \(pid \d+, "session"\) is changing .*card1\/pcm0p\/xrun_debug/,
  );
  assert.deepEqual(masks(), ['0', '1']);
});

test('a write that fails is returned with its reason, and the first stream is put back', (t) => {
  const { journalDir, playback, masks } = setup(t);
  let writes = 0;
  const io = {
    ...realSettingFileIo,
    write: (path: string, value: string) => {
      // The second stream refuses the new mask; restoring the first still works.
      if (++writes === 2)
        throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      realSettingFileIo.write(path, value);
    },
  };
  const took = takeXrunDebug(playback, 3, { ...opts(journalDir), io });
  assert.equal(took.ok, false);
  assert.match(took.ok ? '' : took.reason, /EACCES/);
  assert.deepEqual(masks(), ['0', '1']);
});
