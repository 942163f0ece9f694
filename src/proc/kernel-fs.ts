// Which file system a path is on, by statfs type: the real kernel's procfs/sysfs (and the
// tracefs/debugfs under /sys) behave differently from a copied tree of plain files. A link in
// a kernel file system was made by the kernel (nobody can plant one there); a tree that is the
// real kernel must share the machine's settings lock, whatever folder it is mounted on.
import * as nodeFs from 'node:fs';

/** statfs f_type of procfs (include/uapi/linux/magic.h). */
export const PROC_SUPER_MAGIC = 0x9fa0;
/** statfs f_type of sysfs. */
export const SYSFS_MAGIC = 0x62656572;
/** statfs f_type of tracefs. */
export const TRACEFS_MAGIC = 0x74726163;
/** statfs f_type of debugfs. */
export const DEBUGFS_MAGIC = 0x64626720;

/** Pure: whether a statfs type is the running kernel's procfs or sysfs (the machine's settings). */
export function isKernelRootFs(type: number | undefined): boolean {
  return type === PROC_SUPER_MAGIC || type === SYSFS_MAGIC;
}

/** Pure: whether a statfs type is a file system only the kernel populates (no planted links). */
export function isKernelMadeFs(type: number | undefined): boolean {
  return isKernelRootFs(type) || type === TRACEFS_MAGIC || type === DEBUGFS_MAGIC;
}

/** The statfs type of the file system holding `path` (following links); undefined when it cannot be read. */
export function fsTypeOf(
  path: string,
  fs: Pick<typeof nodeFs, 'statfsSync'> = nodeFs,
): number | undefined {
  try {
    return Number(fs.statfsSync(path).type);
  } catch {
    return undefined;
  }
}
