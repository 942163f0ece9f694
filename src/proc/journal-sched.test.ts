// The 'sched' journal kind. The trust rules are pure (a planted journal must not make root
// reschedule an arbitrary process). The restore path is real: sched_setscheduler on a
// SPAWNED CHILD PROCESS that renames itself irq/99-… — a stand-in for an IRQ thread, which a
// test cannot create — with the kernel-thread check replaced by the named test double
// (acceptUserThreadForTest); without it the same restore refuses the child and leaves it be.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { createRunNotes } from '../run/run-notes.js';
import type { RunContext } from '../run/probe.js';
import { createKnobProbe } from '../try/knob-probe.js';
import type { KnobChange } from '../try/knobs/index.js';
import {
  currentOwner,
  judgeJournalEntries,
  judgeSchedTarget,
  realSettingFileIo,
  sessionPartJournalFile,
  SettingsJournal,
  SYSTEM_SETTING_ROOTS,
  type JournalEntry,
} from './index.js';
import {
  parseSchedOriginal,
  readThreadSched,
  schedOriginal,
  schedRestorer,
  setThreadScheduling,
  SCHED_FIFO,
} from './journal-sched.js';

const isRoot = process.geteuid?.() === 0;
const cleanups: (() => void)[] = [];
after(() => cleanups.forEach((c) => c()));

const entry = (path: string, original: string): JournalEntry => ({
  path,
  original,
  kind: 'sched',
  recordedAt: '2026-12-01T00:00:00Z',
});

test('the trust check accepts a sched entry only for /proc/PID and an irq/N-… thread', () => {
  const self = `/proc/${process.pid}`;
  const ok = judgeJournalEntries([entry(self, `1:50:123:irq/33-snd_hda_`)], SYSTEM_SETTING_ROOTS);
  assert.equal(ok.trusted, true);
  for (const [path, original, re] of [
    [self, '1:50:123:systemd', /not the policy of an interrupt thread/],
    [self, '1:50:123:irq/x-nope', /not the policy of an interrupt thread/],
    ['/etc/passwd', '1:50:123:irq/33-snd', /not a setting xrunhunt changes/],
    [`/proc/${process.pid}/comm`, '1:50:123:irq/33-snd', /not a setting xrunhunt changes/],
  ] as const) {
    const v = judgeJournalEntries([entry(path, original)], SYSTEM_SETTING_ROOTS);
    assert.equal(v.trusted, false, `${path} ${original}`);
    if (!v.trusted) assert.match(v.reasons[0]!, re);
  }
});

test('judgeSchedTarget wants the same kernel thread: comm, start time, PF_KTHREAD', () => {
  const want = { comm: 'irq/33-snd_hda_', startTicks: 500 };
  const now = {
    comm: 'irq/33-snd_hda_',
    startTicks: 500,
    flags: 0x0020_0040,
    policy: 1,
    priority: 90,
  };
  assert.equal(judgeSchedTarget(want, now), null);
  assert.match(judgeSchedTarget(want, null)!, /ended/);
  assert.match(judgeSchedTarget(want, { ...now, comm: 'bash' })!, /is now "?bash/);
  assert.match(judgeSchedTarget(want, { ...now, startTicks: 9 })!, /pid was reused/);
  assert.match(judgeSchedTarget(want, { ...now, flags: 0x400100 })!, /not a kernel thread/);
  assert.equal(judgeSchedTarget(want, { ...now, flags: 0x400100 }, true), null);
  assert.match(judgeSchedTarget({ ...want, comm: 'sshd' }, now)!, /not an interrupt thread/);
  assert.deepEqual(
    parseSchedOriginal(schedOriginal({ pid: 1, ...want, policy: 1, priority: 50 })),
    {
      ...want,
      policy: 1,
      priority: 50,
    },
  );
});

/** A child that renames itself irq/99-xrhtest and waits (a stand-in for an IRQ thread). */
async function fakeIrqThread(): Promise<ChildProcess & { pid: number }> {
  const child = spawn(
    'bash',
    ['-c', 'printf %s irq/99-xrhtest > /proc/$$/comm; echo ready; while :; do sleep 1; done'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  cleanups.push(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  return child as ChildProcess & { pid: number };
}

const ctx = (): RunContext => {
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
};

const policyOf = (pid: number) => {
  const t = readThreadSched('/proc', pid, realSettingFileIo)!;
  return [t.policy, t.priority];
};

test(
  'the knob probe sets a (spawned stand-in) irq thread to FIFO and restores it, journaled as sched',
  { skip: isRoot ? false : 'needs root (sched_setscheduler SCHED_FIFO on another process)' },
  async () => {
    const child = await fakeIrqThread();
    const journalDir = mkdtempSync(join(tmpdir(), 'xrunhunt-sched-'));
    cleanups.push(() => rmSync(journalDir, { recursive: true, force: true }));
    const thread = readThreadSched('/proc', child.pid, realSettingFileIo)!;
    assert.equal(thread.comm, 'irq/99-xrhtest');
    assert.deepEqual(policyOf(child.pid), [0, 0]);
    const change: KnobChange = {
      spec: 'irq.99.priority=20',
      what: 'the priority of irq/99-xrhtest',
      from: 'SCHED_OTHER',
      to: 'SCHED_FIFO 20',
      writes: [],
      threads: [{ path: `/proc/${child.pid}`, thread, policy: SCHED_FIFO, priority: 20 }],
    };
    const probeOptions = {
      changes: [change],
      journalDir,
      toolVersion: 'test',
      io: realSettingFileIo,
    };
    // The production probe refuses the stand-in: it is not a kernel thread.
    assert.throws(() => createKnobProbe(probeOptions).apply!(ctx()), /not a kernel thread/);
    assert.deepEqual(policyOf(child.pid), [0, 0]);

    const probe = createKnobProbe({ ...probeOptions, acceptUserThreadForTest: true });
    await probe.apply!(ctx());
    assert.deepEqual(policyOf(child.pid), [SCHED_FIFO, 20]);
    const file = sessionPartJournalFile(journalDir, process.pid, 'try');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { entries: JournalEntry[] };
    assert.deepEqual(
      doc.entries.map((e) => [e.path, e.kind, e.original]),
      [[`/proc/${child.pid}`, 'sched', `0:0:${thread.startTicks}:irq/99-xrhtest`]],
    );
    await probe.restore!(ctx());
    assert.deepEqual(policyOf(child.pid), [0, 0]);
  },
);

test(
  'after kill -9 the built-in restorer drops a journal naming a user process; only the test double resets it',
  { skip: isRoot ? false : 'needs root' },
  async () => {
    const child = await fakeIrqThread();
    const journalDir = mkdtempSync(join(tmpdir(), 'xrunhunt-sched-'));
    cleanups.push(() => rmSync(journalDir, { recursive: true, force: true }));
    const thread = readThreadSched('/proc', child.pid, realSettingFileIo)!;
    const file = join(journalDir, 'left-by-a-killed-run.json');
    const j = SettingsJournal.open(file, currentOwner('try', true, 'test'));
    j.record(`/proc/${child.pid}`, schedOriginal(thread), 'sched');
    setThreadScheduling(child.pid, SCHED_FIFO, 30);
    // What the next run does with a dead run's journal: trust check, then restore.
    const loaded = SettingsJournal.load(file)!;
    assert.equal(judgeJournalEntries(loaded.entries, SYSTEM_SETTING_ROOTS).trusted, true);
    const report = loaded.restore();
    assert.deepEqual(report.gone, [`/proc/${child.pid}`]);
    assert.deepEqual(policyOf(child.pid), [SCHED_FIFO, 30], 'a user process is left alone');

    const j2 = SettingsJournal.open(file, currentOwner('try', true, 'test'));
    j2.record(`/proc/${child.pid}`, schedOriginal(thread), 'sched');
    const r2 = SettingsJournal.load(file)!.restore({
      sched: schedRestorer({ acceptUserThreadForTest: true }),
    });
    assert.deepEqual(
      r2.restored.map((r) => r.path),
      [`/proc/${child.pid}`],
    );
    assert.deepEqual(policyOf(child.pid), [0, 0]);
    // A pid whose start time differs (reused) is dropped even with the double.
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const j3 = SettingsJournal.open(file, currentOwner('try', true, 'test'));
    j3.record(`/proc/${child.pid}`, schedOriginal(thread), 'sched');
    const r3 = SettingsJournal.load(file)!.restore({
      sched: schedRestorer({ acceptUserThreadForTest: true }),
    });
    assert.deepEqual([r3.gone.length, r3.failed.length], [1, 0]);
  },
);
