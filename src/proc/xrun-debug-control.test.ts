// xrun_debug control over fake /proc trees: all-or-nothing enable, session restore on every
// exit path, refusal to layer over a live session, and restoring journals of killed runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createFakeSystem, dummyCard } from '../../test/helpers/fake-proc.js';
import { discoverAsound } from './discover-asound.js';
import { SettingsJournal, readJournalFile, readProcessStartTicks } from './journal.js';
import { manualJournalFile, sessionJournalFile } from './journal-files.js';
import { XrunDebugControl, withXrunDebug } from './xrun-debug-control.js';
import { restorePendingJournals } from './restore-pending.js';
import type { SettingFileIo } from './setting-file.js';
import { realSettingFileIo } from './setting-file.js';

function setup(t: { after(fn: () => void): void }, mask: number | string = 0) {
  const fake = createFakeSystem({ cards: [dummyCard({}, mask)] });
  const journalDir = mkdtempSync(join(tmpdir(), 'xrunhunt-jdir-'));
  t.after(() => {
    fake.cleanup();
    rmSync(journalDir, { recursive: true, force: true });
  });
  const streams = discoverAsound(fake.procRoot).streams;
  const roots = { procRoot: fake.procRoot, sysRoot: fake.sysRoot };
  const masks = () =>
    streams.map((s) => fake.readProc(s.xrunDebugPath!.slice(fake.procRoot.length + 1)).trim());
  return { fake, roots, journalDir, streams, masks };
}

const opts = (journalDir: string) => ({
  journalDir,
  command: 'test session',
  toolVersion: '0.0.0-test',
});

test('enable sets the mask on every stream and restore puts the originals back', (t) => {
  const { journalDir, streams, masks } = setup(t, 1);
  const file = manualJournalFile(journalDir);
  const owner = {
    pid: process.pid,
    startTicks: undefined,
    startedAt: 'x',
    toolVersion: 't',
    command: 'debug on',
    temporary: false,
  };
  const control = new XrunDebugControl(SettingsJournal.open(file, owner));
  const changes = control.enable(streams, 3);
  assert.deepEqual(
    changes.map((c) => [c.pcm, c.from, c.to]),
    [
      ['pcmC0D0c', 1, 3],
      ['pcmC0D0p', 1, 3],
    ],
  );
  assert.deepEqual(masks(), ['3', '3']);
  assert.deepEqual(
    readJournalFile(file)!.entries.map((e) => e.original),
    ['1', '1'],
  );
  const report = control.restore();
  assert.equal(report.restored.length, 2);
  assert.deepEqual(masks(), ['1', '1']);
  assert.equal(readJournalFile(file), undefined);
});

test('enable is all or nothing: a failing second write puts the first stream back', (t) => {
  const { journalDir, streams, masks } = setup(t, 0);
  let writes = 0;
  const io: SettingFileIo = {
    read: realSettingFileIo.read,
    write(path, value) {
      if (value === '3' && ++writes === 2) throw new Error('simulated EIO');
      realSettingFileIo.write(path, value);
    },
  };
  const owner = {
    pid: process.pid,
    startTicks: undefined,
    startedAt: 'x',
    toolVersion: 't',
    command: 'c',
    temporary: true,
  };
  const control = new XrunDebugControl(
    SettingsJournal.open(sessionJournalFile(journalDir, 1), owner, { io }),
    io,
  );
  assert.throws(() => control.enable(streams, 3), /simulated EIO/);
  assert.deepEqual(masks(), ['0', '0']);
  assert.equal(readJournalFile(sessionJournalFile(journalDir, 1)), undefined, 'no stale entries');
});

test('enable refuses garbage in xrun_debug instead of journaling it', (t) => {
  const { journalDir, streams, masks } = setup(t, 'garbage\n');
  const owner = {
    pid: process.pid,
    startTicks: undefined,
    startedAt: 'x',
    toolVersion: 't',
    command: 'c',
    temporary: true,
  };
  const control = new XrunDebugControl(
    SettingsJournal.open(sessionJournalFile(journalDir, 2), owner),
  );
  assert.throws(
    () => control.enable(streams, 3),
    /expected an integer in xrun_debug, found "garbage\\n"/,
  );
  assert.deepEqual(masks(), ['garbage', 'garbage']);
});

test('withXrunDebug: set during fn, restored after return and after a throw; journal removed', async (t) => {
  const { journalDir, streams, masks } = setup(t, 0);
  const during = await withXrunDebug(
    streams,
    3,
    new AbortController().signal,
    async () => masks(),
    opts(journalDir),
  );
  assert.deepEqual(during, ['3', '3']);
  assert.deepEqual(masks(), ['0', '0']);
  await assert.rejects(
    withXrunDebug(
      streams,
      7,
      new AbortController().signal,
      async () => {
        assert.deepEqual(masks(), ['7', '7']);
        throw new Error('boom');
      },
      opts(journalDir),
    ),
    /boom/,
  );
  assert.deepEqual(masks(), ['0', '0']);
  assert.equal(readJournalFile(sessionJournalFile(journalDir, process.pid)), undefined);
});

test('withXrunDebug: an abort (Ctrl-C) ends fn and restores', async (t) => {
  const { journalDir, streams, masks } = setup(t, 0);
  const ac = new AbortController();
  const reports: number[] = [];
  await withXrunDebug(
    streams,
    3,
    ac.signal,
    (_changes, signal) =>
      new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve());
        setImmediate(() => ac.abort());
      }),
    { ...opts(journalDir), onRestore: (r) => reports.push(r.restored.length) },
  );
  assert.deepEqual(reports, [2]);
  assert.deepEqual(masks(), ['0', '0']);
});

test('withXrunDebug refuses to layer over a live session that owns the same files', async (t) => {
  const { journalDir, streams, masks } = setup(t, 0);
  const sleeper = spawn('sleep', ['30']);
  t.after(() => sleeper.kill('SIGKILL'));
  const pid = sleeper.pid!;
  const other = SettingsJournal.open(sessionJournalFile(journalDir, pid), {
    pid,
    startTicks: readProcessStartTicks(pid),
    startedAt: new Date().toISOString(),
    toolVersion: 't',
    command: 'session --duration 10m',
    temporary: true,
  });
  other.record(streams[0]!.xrunDebugPath!, '0', 'xrun_debug');
  await assert.rejects(
    withXrunDebug(
      streams,
      3,
      new AbortController().signal,
      async () => undefined,
      opts(journalDir),
    ),
    new RegExp(`another xrunhunt \\(pid ${pid}, "session --duration 10m"\\) is changing`),
  );
  assert.deepEqual(masks(), ['0', '0']);
});

test('a journal left by a dead session is restored (non-interactive) and reported on stderr', async (t) => {
  const { journalDir, streams, masks, fake, roots } = setup(t, 0);
  const deadPid = 2 ** 22 + 12345; // above pid_max's ceiling (4194304): never a live process
  const j = SettingsJournal.open(sessionJournalFile(journalDir, deadPid), {
    pid: deadPid,
    startTicks: 1,
    startedAt: '2026-01-01T00:00:00.000Z',
    toolVersion: 't',
    command: 'session',
    temporary: true,
  });
  for (const s of streams)
    j.set(s.xrunDebugPath!, '3', { kind: 'xrun_debug', normalize: (x) => x.trim() });
  assert.deepEqual(masks(), ['3', '3']);
  const stderr = new PassThrough();
  const chunks: string[] = [];
  stderr.on('data', (d: Buffer) => chunks.push(d.toString()));
  const out = await restorePendingJournals(journalDir, {
    stderr,
    stdin: new PassThrough(),
    interactive: false,
    roots,
  });
  assert.equal(out.found, 1);
  assert.deepEqual(masks(), ['0', '0']);
  const text = chunks.join('');
  assert.match(text, new RegExp(`killed xrunhunt run \\(pid ${deadPid}, "session"`));
  assert.match(text, /restoring the original values/);
  assert.ok(text.includes(`restored ${fake.proc('asound/card0/pcm0c/xrun_debug')} = 0`));
});

test('interactive: answering "n" leaves the values and the journal', async (t) => {
  const { journalDir, streams, masks, roots } = setup(t, 0);
  const deadPid = 2 ** 22 + 777;
  const file = sessionJournalFile(journalDir, deadPid);
  const j = SettingsJournal.open(file, {
    pid: deadPid,
    startTicks: 1,
    startedAt: 'x',
    toolVersion: 't',
    command: 'session',
    temporary: true,
  });
  j.set(streams[0]!.xrunDebugPath!, '3', { kind: 'xrun_debug', normalize: (x) => x.trim() });
  const stdin = new PassThrough();
  stdin.end('n\n');
  const stderr = new PassThrough();
  stderr.resume();
  const out = await restorePendingJournals(journalDir, {
    stderr,
    stdin,
    interactive: true,
    roots,
  });
  assert.deepEqual(out.declined, [file]);
  assert.equal(masks()[0], '3');
  assert.ok(readJournalFile(file));
});

test('manual journals (debug on) are never auto-restored', async (t) => {
  const { journalDir, streams, masks, roots } = setup(t, 0);
  const j = SettingsJournal.open(manualJournalFile(journalDir), {
    pid: 2 ** 22 + 1,
    startTicks: 1,
    startedAt: 'x',
    toolVersion: 't',
    command: 'debug on',
    temporary: false,
  });
  j.set(streams[0]!.xrunDebugPath!, '3', { kind: 'xrun_debug', normalize: (x) => x.trim() });
  const stderr = new PassThrough();
  stderr.resume();
  const out = await restorePendingJournals(journalDir, {
    stderr,
    stdin: new PassThrough(),
    interactive: false,
    roots,
  });
  assert.equal(out.found, 0);
  assert.equal(masks()[0], '3');
});
