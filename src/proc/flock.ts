// flock(2) through koffi: Node has no file locks, and the settings lock must be one the kernel
// drops by itself when its holder dies (kill -9 included), so no stale lock is ever left to
// judge. The only libc call src/proc makes; loaded on first use.
import koffi from 'koffi';

const LOCK_EX = 2;
const LOCK_NB = 4;
/** EWOULDBLOCK (= EAGAIN) on Linux: another open file description holds the lock. */
const EWOULDBLOCK = 11;
const EINTR = 4;

let flockFn: ((fd: number, operation: number) => number) | undefined;

function flockFunction(): (fd: number, operation: number) => number {
  if (!flockFn) {
    const libc = koffi.load('libc.so.6');
    flockFn = libc.func('int flock(int fd, int operation)') as (fd: number, op: number) => number;
  }
  return flockFn;
}

/**
 * Takes an exclusive lock on `fd` without waiting: true when taken, false when another holder
 * has it. Other failures throw with the errno number.
 */
export function tryLockExclusive(fd: number): boolean {
  const flock = flockFunction();
  for (;;) {
    if (flock(fd, LOCK_EX | LOCK_NB) === 0) return true;
    const errno = koffi.errno();
    if (errno === EINTR) continue;
    if (errno === EWOULDBLOCK) return false;
    throw Object.assign(new Error(`flock failed (errno ${errno})`), { errno });
  }
}
