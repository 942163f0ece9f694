// Whether a pid names a live process: the one test behind every "its writer died, remove its
// leftovers" rule (inbox temp files, a folder's atomic temps, half-built lab caches).
import { errnoCode } from './errors.js';

/** Whether a process with this pid exists (EPERM means it does, owned by someone else). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}
