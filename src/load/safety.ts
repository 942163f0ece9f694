// Safety limits checked before a load starts: a disk load may not push its filesystem below
// a free-space floor, a memory load may not push the machine into the OOM killer. Pure: the
// caller reads statfs and /proc/meminfo and passes the numbers in.
import { XrunhuntError } from '../errors.js';
import { formatBytes } from '../units.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

// Free space kept on a filesystem: 10% of it or 1 GiB, whichever is larger. Below ~10% ext4
// and btrfs slow down sharply (fragmentation, reserved blocks), and 1 GiB keeps small root
// filesystems usable by everything else running during the test.
const DISK_FLOOR_SHARE = 0.1;
const DISK_FLOOR_MIN = 1 * GiB;

// Memory left available to everything else: 10% of RAM or 512 MiB, whichever is larger.
// The kernel's own watermarks sit well below this, so reclaim runs (the point of the load)
// without the OOM killer choosing a victim.
const MEMORY_RESERVE_SHARE = 0.1;
const MEMORY_RESERVE_MIN = 512 * MiB;

export interface DiskSpace {
  totalBytes: number;
  /** Available to unprivileged writers (statfs bavail × bsize). */
  availableBytes: number;
}

/** The free space xrunhunt keeps on a filesystem unless the user sets `--min-free`. */
export function defaultDiskFloor(totalBytes: number): number {
  return Math.max(DISK_FLOOR_SHARE * totalBytes, DISK_FLOOR_MIN);
}

// Refuses a disk load whose planned size would leave less than the floor free.
export function checkDiskFloor(
  space: DiskSpace,
  plannedBytes: number,
  floorBytes: number,
  dir: string,
): void {
  if (space.availableBytes - plannedBytes >= floorBytes) return;
  throw new XrunhuntError(
    'resource',
    `not enough free space in ${dir}: the load needs ${formatBytes(plannedBytes)}, ` +
      `${formatBytes(space.availableBytes)} of ${formatBytes(space.totalBytes)} is free, and xrunhunt ` +
      `keeps at least ${formatBytes(floorBytes)} free`,
    {
      hint:
        'use a smaller --size, fewer --workers, another filesystem with --dir, or set the floor ' +
        'with --min-free (default: 10% of the filesystem or 1 GiB, whichever is larger)',
    },
  );
}

export interface MemoryInfo {
  totalBytes: number;
  availableBytes: number;
}

/** Parses /proc/meminfo text (MemTotal, MemAvailable in kB) into bytes. */
export function parseMeminfo(text: string): MemoryInfo {
  const read = (key: string): number | undefined => {
    const m = new RegExp(`^${key}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const total = read('MemTotal');
  // MemAvailable exists since Linux 3.14; before that free + cached is the usual estimate.
  const available = read('MemAvailable') ?? (read('MemFree') ?? 0) + (read('Cached') ?? 0);
  if (total === undefined) {
    throw new XrunhuntError(
      'format',
      'cannot read memory size: /proc/meminfo has no MemTotal line',
    );
  }
  return { totalBytes: total, availableBytes: available };
}

/** Memory kept available to the rest of the machine during a memory load. */
export function memoryReserve(info: MemoryInfo): number {
  return Math.max(MEMORY_RESERVE_SHARE * info.totalBytes, MEMORY_RESERVE_MIN);
}

/** The largest anonymous memory a `memory` load may take now (0 when none). */
export function maxMemoryLoad(info: MemoryInfo): number {
  return Math.max(0, Math.floor(info.availableBytes - memoryReserve(info)));
}

// Refuses a memory load that would push the machine towards the OOM killer.
export function checkMemory(info: MemoryInfo, plannedBytes: number): void {
  const max = maxMemoryLoad(info);
  if (plannedBytes <= max) return;
  throw new XrunhuntError(
    'resource',
    `not enough free memory: the load wants ${formatBytes(plannedBytes)}, ${formatBytes(info.availableBytes)} ` +
      `of ${formatBytes(info.totalBytes)} is available, and xrunhunt keeps ${formatBytes(memoryReserve(info))} ` +
      `(10% of RAM or 512 MiB, whichever is larger) for the rest of the machine`,
    { hint: `use --size ${Math.floor(max / MiB)}M or less, or close other programs` },
  );
}
