// The journal kind 'sched': a thread's scheduling policy and priority, as `try irq.priority`
// changes it on an interrupt thread (irq/N-…, under threadirqs). The entry's path is the
// thread's /proc/PID folder and its original `POLICY:PRIORITY:STARTTICKS:COMM`, so restore
// (also after kill -9) puts the policy back only on that same thread: same comm, same start
// time, still a kernel thread named irq/N-… (journal-trust.ts judgeSchedTarget); a thread that
// ended or a pid reused since is "gone" and dropped, never another process rescheduled.
import { join } from 'node:path';
import koffi from 'koffi';
import { XrunhuntError } from '../errors.js';
import { judgeSchedTarget, type SchedFacts } from './journal-trust.js';
import type { EntryRestorer } from './journal.js';
import type { SettingFileIo } from './setting-file.js';

export const SCHED_JOURNAL_KIND = 'sched';
export const SCHED_OTHER = 0;
export const SCHED_FIFO = 1;

/** A thread's scheduling as the journal keeps it. */
export interface ThreadSched {
  pid: number;
  comm: string;
  startTicks: number;
  policy: number;
  priority: number;
}

/** The fields of /proc/PID/stat (after the comm) that say which thread it is and how it runs. */
export function parseSchedStat(stat: string): SchedFacts | null {
  // The comm may contain spaces and parentheses: fields resume after the LAST ')'.
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const f = stat.slice(close + 2).split(' ');
  const flags = Number(f[6]);
  const startTicks = Number(f[19]);
  const priority = Number(f[37]);
  const policy = Number(f[38]);
  if (![flags, startTicks, priority, policy].every(Number.isFinite)) return null;
  return { flags, startTicks, priority, policy };
}

/** Reads a thread's comm and stat facts under `procRoot`; null when it is gone or unreadable. */
export function readThreadSched(
  procRoot: string,
  pid: number,
  io: Pick<SettingFileIo, 'read'>,
): (ThreadSched & { flags: number }) | null {
  try {
    const comm = io.read(join(procRoot, String(pid), 'comm')).replace(/\n$/, '');
    const facts = parseSchedStat(io.read(join(procRoot, String(pid), 'stat')));
    return facts ? { pid, comm, ...facts } : null;
  } catch {
    return null;
  }
}

/** The journaled original of a thread's scheduling (at most 64 characters: comm is ≤ 15). */
export function schedOriginal(t: ThreadSched): string {
  return `${t.policy}:${t.priority}:${t.startTicks}:${t.comm}`;
}

/** Parses what schedOriginal wrote; null for anything else. */
export function parseSchedOriginal(original: string): Omit<ThreadSched, 'pid'> | null {
  const m = /^([0-6]):(\d{1,2}):(\d{1,20}):(.{1,15})$/.exec(original);
  if (!m) return null;
  return {
    policy: Number(m[1]),
    priority: Number(m[2]),
    startTicks: Number(m[3]),
    comm: m[4]!,
  };
}

type SetScheduler = (pid: number, policy: number, param: { sched_priority: number }) => number;
let setScheduler: SetScheduler | undefined;

function libcSetScheduler(): SetScheduler {
  if (!setScheduler) {
    const lib = koffi.load('libc.so.6');
    koffi.struct('xrh_journal_sched_param', { sched_priority: 'int' });
    setScheduler = lib.func(
      'int sched_setscheduler(int pid, int policy, const xrh_journal_sched_param *param)',
    ) as unknown as SetScheduler;
  }
  return setScheduler;
}

/** Sets another thread's policy and priority (sched_setscheduler); throws with errno on failure. */
export function setThreadScheduling(pid: number, policy: number, priority: number): void {
  const rc = libcSetScheduler()(pid, policy, { sched_priority: priority });
  if (rc === 0) return;
  const errno = koffi.errno();
  throw new XrunhuntError(
    errno === 1 ? 'permission' : 'resource',
    `cannot set the scheduling of thread ${pid} to policy ${policy} priority ${priority}: errno ${errno}${errno === 1 ? ' (not permitted: run as root)' : ''}`,
  );
}

export interface SchedRestorerOptions {
  /**
   * TEST DOUBLE ONLY: accept a user thread as if it were a kernel thread. A test process
   * cannot be a kernel thread, so the real restore test renames a spawned child `irq/N-…`
   * and sets this; production code never does.
   */
  acceptUserThreadForTest?: boolean;
}

/** The restorer of 'sched' entries: checks the thread is still the journaled one, then resets it. */
export function schedRestorer(options: SchedRestorerOptions = {}): EntryRestorer {
  return (entry, io) => {
    const want = parseSchedOriginal(entry.original);
    const pid = Number(/(\d+)$/.exec(entry.path)?.[1]);
    if (!want || !Number.isInteger(pid))
      throw new XrunhuntError('format', `not a thread's scheduling: ${entry.original}`);
    const now = readThreadSched(join(entry.path, '..'), pid, io);
    const why = judgeSchedTarget(want, now, options.acceptUserThreadForTest === true);
    if (why !== null)
      throw new XrunhuntError('not-found', `thread ${pid} is not the one journaled: ${why}`);
    setThreadScheduling(pid, want.policy, want.priority);
  };
}
