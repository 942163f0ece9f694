// The knobs of the B rounds as a probe of the one run lifecycle: apply journals each setting's
// original (session-<pid>-try.json, the same durable journal xrun_debug uses) before writing
// it and opens the held requests; restore closes those and writes every original back. So a
// B round's changes are undone at its end, on Ctrl-C (the lifecycle's finally), and after
// kill -9 by the next run's start (beginSettingsRun restores dead runs' journals).
import { closeSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  SettingsJournal,
  currentOwner,
  describeRestoreReport,
  sessionPartJournalFile,
  settingFileError,
  judgeSchedTarget,
  type SettingFileIo,
  type SettingRoots,
} from '../proc/index.js';
import {
  SCHED_JOURNAL_KIND,
  readThreadSched,
  schedOriginal,
  schedRestorer,
  setThreadScheduling,
} from '../proc/journal-sched.js';
import { XrunhuntError } from '../errors.js';
import type { RunContext, RunProbe } from '../run/probe.js';
import type { HeldRequest, KnobChange } from './knobs/index.js';

export interface KnobProbeOptions {
  changes: readonly KnobChange[];
  journalDir: string;
  toolVersion: string;
  io: SettingFileIo;
  /** The trees the knobs live in: each original is checked with restore's rule before a write. */
  roots?: SettingRoots;
  /** Opens a held request; returns its closer (default: open, write the bytes, keep the fd). */
  hold?: (request: HeldRequest) => () => void;
  /** Sets a thread's scheduling (default: sched_setscheduler). */
  setScheduling?: (pid: number, policy: number, priority: number) => void;
  /**
   * TEST DOUBLE ONLY: accept a user thread named irq/N-… as if it were a kernel thread, in
   * apply and in restore (the real test on a spawned child; see journal-sched.ts).
   */
  acceptUserThreadForTest?: boolean;
}

/** Opens a PM QoS style request file and keeps it open until the closer is called. */
export function holdOpen(request: HeldRequest): () => void {
  let fd: number;
  try {
    fd = openSync(request.path, 'r+');
  } catch (err) {
    throw settingFileError('write', request.path, err);
  }
  try {
    writeSync(fd, request.bytes);
  } catch (err) {
    closeSync(fd);
    throw settingFileError('write', request.path, err);
  }
  return () => closeSync(fd);
}

/** Creates the probe that applies `changes` for one B round. */
export function createKnobProbe(o: KnobProbeOptions): RunProbe {
  let journal: SettingsJournal | null = null;
  const closers: (() => void)[] = [];
  return {
    name: 'try knobs',
    apply(ctx: RunContext) {
      const machine = o.changes.some((c) => c.writes.length > 0 || (c.threads ?? []).length > 0);
      if (machine)
        journal = SettingsJournal.open(
          sessionPartJournalFile(o.journalDir, process.pid, 'try'),
          currentOwner('try', true, o.toolVersion),
          { io: o.io, ...(o.roots ? { roots: o.roots } : {}) },
        );
      for (const c of o.changes) {
        for (const w of c.writes) {
          if (!w.journal) o.io.write(w.path, w.value ?? '');
          else if (w.value === null) {
            const text = o.io.read(w.path);
            journal!.record(w.path, w.normalize ? w.normalize(text) : text);
          } else journal!.set(w.path, w.value, w.normalize ? { normalize: w.normalize } : {});
        }
        for (const t of c.threads ?? []) {
          // Rounds later the pid may be another task: set only the thread `try` resolved.
          const now = readThreadSched(dirname(t.path), t.thread.pid, o.io);
          const why = judgeSchedTarget(t.thread, now, o.acceptUserThreadForTest === true);
          if (why !== null || now === null)
            throw new XrunhuntError(
              'not-found',
              `try: thread ${t.thread.pid} (${t.thread.comm}) is not the one resolved: ${why ?? 'it has ended'}`,
            );
          journal!.record(t.path, schedOriginal(now), SCHED_JOURNAL_KIND);
          (o.setScheduling ?? setThreadScheduling)(t.thread.pid, t.policy, t.priority);
        }
        if (c.hold) closers.push((o.hold ?? holdOpen)(c.hold));
        ctx.notes.note(`try: ${c.what} set to ${c.to} (was ${c.from})`);
      }
    },
    restore(ctx: RunContext) {
      for (const close of closers.splice(0).reverse()) {
        try {
          close();
        } catch (err) {
          ctx.notes.warn(`try: closing a held request failed: ${String(err)}`);
        }
      }
      if (!journal) return;
      const report = journal.restore(
        o.acceptUserThreadForTest
          ? { [SCHED_JOURNAL_KIND]: schedRestorer({ acceptUserThreadForTest: true }) }
          : {},
      );
      journal = null;
      for (const f of report.failed)
        ctx.notes.warn(`try: could not restore ${f.path} to ${f.value}: ${f.error}`);
      if (report.restored.length > 0)
        ctx.notes.note(`try: restored ${describeRestoreReport(report).join('; ')}`);
    },
  };
}
