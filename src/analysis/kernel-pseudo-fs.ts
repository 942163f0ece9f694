// Files on the kernel's pseudo file systems (/proc, /sys, debugfs, tracefs …) look like
// regular files but are not data at rest: /proc/kmsg blocks until the kernel prints,
// trace_pipe never ends, most report a size of 0, and none can be created there. Inputs and
// report targets on them are named as such instead of being read or written like files.
import { statfsSync } from 'node:fs';

// statfs f_type magic numbers (include/uapi/linux/magic.h).
const PSEUDO_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
  [0x1373, 'devfs'],
]);

/** The name of the kernel pseudo file system `path` is on ("proc", "sysfs" …), or undefined. */
export function kernelPseudoFsName(path: string): string | undefined {
  try {
    return PSEUDO_FS.get(Number(statfsSync(path).type));
  } catch {
    return undefined;
  }
}
