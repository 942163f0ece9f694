// Pins every thread of the calling process to a set of CPUs (sched_setaffinity through libc,
// koffi). A load worker calls it first thing: threads it creates later (libuv's pool, an
// external command it spawns) inherit the mask, so the whole load stays on those CPUs.
import { readdirSync } from 'node:fs';
import koffi from 'koffi';

// Large enough for 1024 CPUs, glibc's default cpu_set_t size.
const CPU_SET_BYTES = 128;

type SetAffinity = (tid: number, size: number, mask: Uint8Array) => number;
let setAffinity: SetAffinity | undefined;

function libcSetAffinity(): SetAffinity {
  setAffinity ??= koffi
    .load('libc.so.6')
    .func(
      'int sched_setaffinity(int pid, size_t cpusetsize, const uint8_t *mask)',
    ) as unknown as SetAffinity;
  return setAffinity;
}

/** The cpu_set_t bytes of a CPU list; null when a CPU is out of range. */
export function cpuMask(cpus: readonly number[]): Uint8Array | null {
  const mask = new Uint8Array(CPU_SET_BYTES);
  for (const cpu of cpus) {
    if (!Number.isInteger(cpu) || cpu < 0 || cpu >= CPU_SET_BYTES * 8) return null;
    mask[cpu >> 3]! |= 1 << (cpu & 7);
  }
  return cpus.length > 0 ? mask : null;
}

/** Pins all threads of this process to `cpus`; returns null or a sentence saying why not. */
export function pinProcessToCpus(cpus: readonly number[]): string | null {
  const mask = cpuMask(cpus);
  if (!mask) return `invalid CPU list ${cpus.join(',')}: expected CPU numbers 0–1023`;
  const set = libcSetAffinity();
  for (const tid of readdirSync('/proc/self/task').map(Number)) {
    if (set(tid, CPU_SET_BYTES, mask) === 0) continue;
    const errno = koffi.errno();
    // ESRCH: the thread ended between the listing and the call.
    if (errno === 3) continue;
    return `cannot pin the load to CPU ${cpus.join(',')}: errno ${errno} (are those CPUs online and allowed by the cpuset?)`;
  }
  return null;
}
