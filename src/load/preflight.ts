// Turns what the caller asked for into a complete, checked plan before anything starts:
// defaults filled in per kind, then the safety checks (free space floor, free memory,
// root for --drop-caches, the external command exists). Refusals are XrunhuntErrors.
import { statfs, readFile, access, constants } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { UsageError, XrunhuntError, errnoCode } from '../errors.js';
import { kindSpec } from './registry.js';
import {
  checkDiskFloor,
  checkMemory,
  defaultDiskFloor,
  parseMeminfo,
  type DiskSpace,
  type MemoryInfo,
} from './safety.js';
import type { LoadKind, LoadOptions } from './types.js';

// One day: longer than any session; anything beyond is surely a typo (`10h` for `10s`?).
const MAX_DURATION_MS = 24 * 3_600_000;
// More workers than this only measures the scheduler's patience, not a load.
const MAX_WORKERS = 256;

/** A load ready to run: every value decided and checked. */
export interface LoadPlan {
  kind: LoadKind;
  durationMs: number;
  /** The folder the user chose; the load's own folder is created inside. */
  parentDir: string;
  sizeBytes: number;
  workers: number;
  dropCaches: boolean;
  command?: string[];
  outputPath?: string;
  limitBytes?: number;
  /** Disk kinds: the free-space floor applied (bytes). */
  minFreeBytes?: number;
}

/** What the checks read from the machine; tests may pass their own. */
export interface MachineProbe {
  statfs(dir: string): Promise<DiskSpace>;
  meminfo(): Promise<MemoryInfo>;
  cores(): number;
  isRoot(): boolean;
  /** Resolves a command name through PATH; undefined when not found or not executable. */
  which(cmd: string): Promise<string | undefined>;
}

/** The real machine. */
export const realMachine: MachineProbe = {
  async statfs(dir) {
    const s = await statfs(dir);
    return { totalBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize };
  },
  async meminfo() {
    return parseMeminfo(await readFile('/proc/meminfo', 'utf8'));
  },
  cores: () => availableParallelism(),
  isRoot: () => process.getuid?.() === 0,
  async which(cmd) {
    const candidates = cmd.includes('/')
      ? [resolve(cmd)]
      : (process.env['PATH'] ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((d) => join(d, cmd));
    for (const c of candidates) {
      try {
        await access(c, constants.X_OK);
        return c;
      } catch {
        // next
      }
    }
    return undefined;
  },
};

// Validates options that need no machine facts; called by createLoad so mistakes surface early.
export function validateLoadOptions(kind: LoadKind, options: LoadOptions): void {
  const d = options.durationMs;
  if (!Number.isFinite(d) || d <= 0 || d > MAX_DURATION_MS) {
    throw new UsageError(
      `invalid duration ${d} ms for load "${kind}": expected more than 0 and at most 24h`,
    );
  }
  if (
    options.workers !== undefined &&
    (!Number.isInteger(options.workers) || options.workers < 1 || options.workers > MAX_WORKERS)
  ) {
    throw new UsageError(
      `invalid --workers ${options.workers}: expected a whole number from 1 to ${MAX_WORKERS}`,
    );
  }
  if (
    options.sizeBytes !== undefined &&
    (!Number.isFinite(options.sizeBytes) || options.sizeBytes <= 0)
  ) {
    throw new UsageError(
      `invalid --size ${options.sizeBytes} bytes: expected more than 0, e.g. 64M`,
    );
  }
  if (kind === 'external' && !options.command?.length) {
    throw new UsageError('the external load needs a command after --', {
      hint: 'e.g. xrunhunt load external --duration 30s -- stress-ng --io 2 --timeout 30s',
    });
  }
  if (kind !== 'external' && options.command?.length) {
    throw new UsageError(`a command after -- applies only to "load external", not to "${kind}"`);
  }
  if (options.dropCaches && kind !== 'read') {
    throw new UsageError(`--drop-caches applies only to the read load, not to "${kind}"`);
  }
}

// Fills in defaults and runs the safety checks; throws XrunhuntError when the load must not run.
export async function preflightLoad(
  kind: LoadKind,
  options: LoadOptions,
  machine: MachineProbe = realMachine,
): Promise<LoadPlan> {
  validateLoadOptions(kind, options);
  const spec = kindSpec(kind);
  const parentDir = resolve(options.dir ?? tmpdir());
  const workers = spec.usesWorkers ? (options.workers ?? spec.defaultWorkers(machine.cores())) : 0;
  let sizeBytes = options.sizeBytes ?? 0;
  const plan: LoadPlan = {
    kind,
    durationMs: options.durationMs,
    parentDir,
    sizeBytes,
    workers,
    dropCaches: options.dropCaches === true,
  };
  if (options.limitBytes !== undefined) plan.limitBytes = options.limitBytes;
  if (!spec.usesWorkers) return plan;

  if (spec.sizeBounds === 'memory') {
    const memory = await machine.meminfo();
    sizeBytes = options.sizeBytes ?? spec.defaultSizeBytes(memory);
    checkMemory(memory, sizeBytes);
  } else if (spec.sizeBounds === 'disk') {
    sizeBytes = options.sizeBytes ?? spec.defaultSizeBytes({ totalBytes: 0, availableBytes: 0 });
    const space = await statfsOrExplain(machine, parentDir);
    const floor = options.minFreeBytes ?? defaultDiskFloor(space.totalBytes);
    checkDiskFloor(space, sizeBytes, floor, parentDir);
    plan.minFreeBytes = floor;
  }
  plan.sizeBytes = sizeBytes;

  if (plan.dropCaches && !machine.isRoot()) {
    throw new XrunhuntError(
      'permission',
      '--drop-caches needs root: it writes /proc/sys/vm/drop_caches',
      {
        hint: 'run as root (sudo), or leave out --drop-caches and use a --size larger than the RAM',
      },
    );
  }
  if (kind === 'external') {
    const [cmd] = options.command!;
    const found = await machine.which(cmd!);
    if (!found) {
      throw new XrunhuntError('not-found', `command not found: "${cmd}"`, {
        hint: 'install it (e.g. apt install stress-ng fio dbench bonnie++) or give its full path',
      });
    }
    plan.command = [...options.command!];
    plan.outputPath =
      options.outputPath ??
      join(
        tmpdir(),
        `xrunhunt-external-${process.pid}-${new Date().toISOString().replace(/[:.]/g, '-')}.log`,
      );
    if (!isAbsolute(plan.outputPath)) plan.outputPath = resolve(plan.outputPath);
  }
  return plan;
}

async function statfsOrExplain(machine: MachineProbe, dir: string): Promise<DiskSpace> {
  try {
    return await machine.statfs(dir);
  } catch (err) {
    const code = errnoCode(err);
    throw new XrunhuntError(
      code === 'ENOENT' || code === 'ENOTDIR' ? 'not-found' : 'resource',
      `cannot use ${dir} for the load: ${code === 'ENOENT' ? 'it does not exist' : (code ?? String(err))}`,
      { hint: 'give an existing folder on the filesystem to stress with --dir', cause: err },
    );
  }
}
