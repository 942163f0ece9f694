// The restore of journals read from disk over a fake /proc: trusted journals restored in the
// order that unwinds layered changes, planted ones refused untouched, half-written temporary
// files of killed writers removed, and changes refused while a journal cannot be read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeSystem, dummyCard } from '../../test/helpers/fake-proc.js';
import { discoverAsound } from './discover-asound.js';
import type { JournalOwner } from './journal.js';
import { SettingsJournal } from './journal.js';
import { manualJournalFile, removeStaleTempJournals, sessionJournalFile } from './journal-files.js';
import { restoreJournals } from './restore-journals.js';
import { assertNoLiveSession } from './xrun-debug-control.js';
import { settingFileError } from './setting-file.js';
import { beginSettingsRun } from './settings-run.js';
import { holdsSettingsLock } from './settings-lock.js';
import { PassThrough } from 'node:stream';

/** Above pid_max's ceiling (4194304): never a live process. */
const DEAD = 2 ** 22 + 4242;

function setup(t: { after(fn: () => void): void }) {
  const fake = createFakeSystem({ cards: [dummyCard({}, 1)] });
  const dir = fs.mkdtempSync(join(tmpdir(), 'xrunhunt-rj-'));
  t.after(() => {
    fake.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const streams = discoverAsound(fake.procRoot).streams;
  const path = streams[0]!.xrunDebugPath!;
  const roots = { procRoot: fake.procRoot, sysRoot: fake.sysRoot };
  const mask = () => fs.readFileSync(path, 'utf8').trim();
  return { fake, dir, path, roots, mask };
}

const owner = (pid: number, startedAt: string, temporary = true): JournalOwner => ({
  pid,
  startTicks: 1,
  startedAt,
  toolVersion: 't',
  command: temporary ? `session ${pid}` : 'debug on',
  temporary,
});

test('lasting on, then two killed sessions layered on it: undone newest first, then the lasting change', async (t) => {
  const { dir, path, roots, mask } = setup(t);
  const kind = { kind: 'xrun_debug', normalize: (x: string) => x.trim() };
  SettingsJournal.open(manualJournalFile(dir), owner(DEAD, 'a', false)).set(path, '3', kind);
  SettingsJournal.open(
    sessionJournalFile(dir, DEAD + 1),
    owner(DEAD + 1, '2026-01-01T00:00:01Z'),
  ).set(path, '5', kind);
  SettingsJournal.open(
    sessionJournalFile(dir, DEAD + 2),
    owner(DEAD + 2, '2026-01-01T00:00:02Z'),
  ).set(path, '7', kind);
  assert.equal(mask(), '7');
  const out = await restoreJournals([dir], { roots, includeManual: true, command: 'test' });
  assert.deepEqual(
    out.restored.map((r) => [r.command, r.report.restored.map((x) => x.value)]),
    [
      [`session ${DEAD + 2}`, ['5']],
      [`session ${DEAD + 1}`, ['3']],
      ['debug on', ['1']],
    ],
  );
  assert.equal(mask(), '1');
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('a journal naming a file outside the proc root is refused whole, nothing written, file kept', async (t) => {
  const { dir, path, roots, mask, fake } = setup(t);
  const victim = join(fake.base, 'victim');
  fs.writeFileSync(victim, 'precious');
  const j = SettingsJournal.open(sessionJournalFile(dir, DEAD), owner(DEAD, 'x'));
  j.record(path, '0', 'xrun_debug');
  j.record(victim, 'X', 'xrun_debug');
  const out = await restoreJournals([dir], { roots, includeManual: false, command: 'test' });
  assert.equal(out.restored.length, 0);
  assert.equal(out.refused.length, 1);
  assert.match(out.refused[0]!.reasons.join('\n'), /victim is not a setting xrunhunt changes/);
  assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
  assert.equal(mask(), '1', 'not even the good entry was written');
  assert.ok(fs.existsSync(sessionJournalFile(dir, DEAD)), 'left for the user to inspect');
});

test('the same journal restores with the roots it was written for, and not with the system roots', async (t) => {
  const { dir, path, roots, mask } = setup(t);
  SettingsJournal.open(sessionJournalFile(dir, DEAD), owner(DEAD, 'x')).set(path, '3', {
    kind: 'xrun_debug',
    normalize: (x) => x.trim(),
  });
  let out = await restoreJournals([dir], {
    roots: { procRoot: '/proc', sysRoot: '/sys' },
    includeManual: false,
    command: 'test',
  });
  assert.equal(out.refused.length, 1);
  assert.equal(mask(), '3');
  out = await restoreJournals([dir], { roots, includeManual: false, command: 'test' });
  assert.equal(out.restored.length, 1);
  assert.equal(mask(), '1');
});

test('temporary journal files of dead writers are removed; a live writer’s are kept', (t) => {
  const { dir } = setup(t);
  const dead = join(dir, `session-${DEAD}.json.tmp-${DEAD}`);
  const live = join(dir, `manual.json.tmp-${process.ppid}`);
  const other = join(dir, 'notes.txt.tmp-1');
  for (const f of [dead, live, other]) fs.writeFileSync(f, '{"format":', { mode: 0o600 });
  assert.deepEqual(removeStaleTempJournals(dir), [dead]);
  assert.deepEqual(fs.readdirSync(dir).sort(), [
    `manual.json.tmp-${process.ppid}`,
    'notes.txt.tmp-1',
  ]);
});

test('a corrupt journal blocks every change (it may name these very settings)', (t) => {
  const { dir, path } = setup(t);
  fs.writeFileSync(manualJournalFile(dir), '{"truncated":', { mode: 0o600 });
  assert.throws(
    () => assertNoLiveSession(dir, [path]),
    /refusing to change kernel settings: the settings journal .*manual\.json is unreadable/,
  );
});

test('a killed run’s journal that was not restored blocks changing the paths it names', (t) => {
  const { dir, path } = setup(t);
  SettingsJournal.open(sessionJournalFile(dir, DEAD), owner(DEAD, 'x')).record(
    path,
    '1',
    'xrun_debug',
  );
  assert.throws(
    () => assertNoLiveSession(dir, [path]),
    /left by a killed run, pid \d+\) still holds the original of .*xrun_debug/,
  );
  assert.doesNotThrow(() => assertNoLiveSession(dir, ['/elsewhere/xrun_debug']));
});

test('EPERM for root says immutable / lockdown, not "needs root"; EROFS says read-only mount', () => {
  const eperm = Object.assign(new Error('EPERM'), { code: 'EPERM' });
  const asRoot = settingFileError('write', '/p/xrun_debug', eperm, 0);
  assert.match(asRoot.message, /operation not permitted \(EPERM\), although xrunhunt runs as root/);
  assert.match(asRoot.hint ?? '', /immutable.*chattr -i/);
  assert.doesNotMatch(asRoot.hint ?? '', /needs root/);
  const asUser = settingFileError('write', '/p/xrun_debug', eperm, 1000);
  assert.match(asUser.hint ?? '', /needs root/);
  const erofs = settingFileError(
    'write',
    '/p/xrun_debug',
    Object.assign(new Error('x'), { code: 'EROFS' }),
    0,
  );
  assert.match(erofs.message, /read-only file system \(EROFS\)/);
  assert.match(erofs.hint ?? '', /mounted read-only/);
});

test('beginSettingsRun: lock first, then the pending restore; the run keeps the lock', async (t) => {
  const { dir, path, roots, mask } = setup(t);
  SettingsJournal.open(sessionJournalFile(dir, DEAD), owner(DEAD, 'x')).set(path, '3', {
    kind: 'xrun_debug',
    normalize: (x) => x.trim(),
  });
  const stderr = new PassThrough();
  stderr.resume();
  const run = await beginSettingsRun({
    roots,
    searchDirs: [dir],
    command: 'session',
    stderr,
    stdin: new PassThrough(),
    interactive: false,
  });
  assert.equal(run.pending.restored.length, 1);
  assert.equal(mask(), '1');
  assert.equal(holdsSettingsLock(roots.procRoot), true);
  run.lock.release();
  assert.equal(holdsSettingsLock(roots.procRoot), false);
});
