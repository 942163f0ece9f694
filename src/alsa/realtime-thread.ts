// Scheduling of the calling thread through libc (koffi): SCHED_FIFO for the audio writer and
// an optional CPU pin. Both act on the CALLING thread only — call them from the worker.
// No mlockall: V8 aborts at isolate teardown after it (platform-facts §2).
import koffi from 'koffi';
import { ERRNO } from './alsa-error.js';

const SCHED_OTHER = 0;
const SCHED_FIFO = 1;
const SCHED_RR = 2;
// Large enough for 1024 CPUs, glibc's default cpu_set_t size.
const CPU_SET_BYTES = 128;

interface Libc {
  pthreadSelf(): number | bigint;
  setSchedParam(thread: number | bigint, policy: number, param: { sched_priority: number }): number;
  getSchedParam(
    thread: number | bigint,
    policy: [number],
    param: { sched_priority: number },
  ): number;
  setAffinity(pid: number, size: number, mask: Uint8Array): number;
  gettid(): number;
  setName(thread: number | bigint, name: string): number;
}

let libc: Libc | undefined;

function loadLibc(): Libc {
  if (libc) return libc;
  const lib = koffi.load('libc.so.6');
  koffi.struct('xrh_sched_param', { sched_priority: 'int' });
  const f = (proto: string): ((...args: never[]) => never) =>
    lib.func(proto) as unknown as (...args: never[]) => never;
  libc = {
    pthreadSelf: f('unsigned long pthread_self(void)'),
    // pthread_* return the error number instead of setting errno.
    setSchedParam: f(
      'int pthread_setschedparam(unsigned long thread, int policy, const xrh_sched_param *param)',
    ),
    getSchedParam: f(
      'int pthread_getschedparam(unsigned long thread, _Out_ int *policy, _Out_ xrh_sched_param *param)',
    ),
    // pid 0 = the calling thread on Linux.
    setAffinity: f('int sched_setaffinity(int pid, size_t cpusetsize, const uint8_t *mask)'),
    gettid: f('int gettid(void)'),
    setName: f('int pthread_setname_np(unsigned long thread, const char *name)'),
  } as Libc;
  return libc;
}

export type SchedPolicyName = 'SCHED_FIFO' | 'SCHED_RR' | 'SCHED_OTHER' | `policy ${number}`;

/** The scheduling a thread actually runs with (read back, not assumed). */
export interface ThreadPolicy {
  policy: SchedPolicyName;
  priority: number;
  tid: number;
}

export interface RealtimeResult extends ThreadPolicy {
  /** Set when the requested policy could not be applied (e.g. EPERM without root / rtprio limit). */
  error?: { errno: number; message: string };
}

function policyName(p: number): SchedPolicyName {
  return p === SCHED_FIFO
    ? 'SCHED_FIFO'
    : p === SCHED_RR
      ? 'SCHED_RR'
      : p === SCHED_OTHER
        ? 'SCHED_OTHER'
        : `policy ${p}`;
}

/** Reads the calling thread's policy and priority, so reports say what was obtained. */
export function currentThreadPolicy(): ThreadPolicy {
  const c = loadLibc();
  const policy: [number] = [0];
  const param = { sched_priority: 0 };
  c.getSchedParam(c.pthreadSelf(), policy, param);
  return { policy: policyName(policy[0]), priority: param.sched_priority, tid: c.gettid() };
}

/** Raises the calling thread to SCHED_FIFO at `priority` (1–99); 0 leaves it at SCHED_OTHER. */
export function setThreadRealtime(priority: number): RealtimeResult {
  const c = loadLibc();
  if (priority <= 0) return currentThreadPolicy();
  const rc = c.setSchedParam(c.pthreadSelf(), SCHED_FIFO, { sched_priority: priority });
  const now = currentThreadPolicy();
  if (rc === 0) return now;
  const message =
    rc === ERRNO.EPERM
      ? `cannot use SCHED_FIFO priority ${priority}: not permitted (run as root, grant CAP_SYS_NICE, or raise "ulimit -r" / the audio group's rtprio in /etc/security/limits.d)`
      : rc === ERRNO.EINVAL
        ? `cannot use SCHED_FIFO priority ${priority}: invalid priority (expected 1–99)`
        : `cannot use SCHED_FIFO priority ${priority}: error ${rc}`;
  return { ...now, error: { errno: rc, message } };
}

/** Pins the calling thread to one CPU; returns null or a message saying why not. */
export function pinThreadToCpu(cpu: number): string | null {
  const c = loadLibc();
  if (!Number.isInteger(cpu) || cpu < 0 || cpu >= CPU_SET_BYTES * 8) return `invalid CPU ${cpu}`;
  const mask = new Uint8Array(CPU_SET_BYTES);
  mask[cpu >> 3] = 1 << (cpu & 7);
  const rc = c.setAffinity(0, CPU_SET_BYTES, mask);
  if (rc === 0) return null;
  return `cannot pin the audio thread to CPU ${cpu}: errno ${koffi.errno()} (does CPU ${cpu} exist and is it allowed by the cpuset?)`;
}

/** The kernel's limit on a thread name (TASK_COMM_LEN 16, with its NUL). */
const THREAD_NAME_MAX = 15;

/**
 * Names the calling thread (its comm in /proc, ps, ftrace and every XRUN stack), so a trace says
 * `xrunhunt-play` where it would say `node`; returns null or why it could not.
 */
export function nameThisThread(name: string): string | null {
  const c = loadLibc();
  const rc = c.setName(c.pthreadSelf(), name.slice(0, THREAD_NAME_MAX));
  return rc === 0 ? null : `cannot name the audio thread "${name}": error ${rc}`;
}
