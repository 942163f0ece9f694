// The file-system side of the kprobe backend's checks: where tracefs is mounted, whether it has
// dynamic kprobe events, lockdown, the xrun symbol in /proc/kallsyms, and whether a probe is
// armed. Every function takes its roots as parameters (tests and doctor pass fake trees).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XrunhuntError, errnoCode } from '../errors.js';
import { readKallsyms } from '../proc/kallsyms-read.js';
import {
  chooseProbePoint,
  explainKprobeFailure,
  findTextSymbols,
  parseKprobeBlacklist,
  parseKprobeList,
  parseLockdown,
  XRUN_PROBE_POINTS,
} from './tracefs.js';
import type { ProbeArmState, XrunProbePoint } from './tracefs.js';

/** Where tracefs was found, or why not. */
export type TracefsLocation = { dir: string } | { error: string };

// Finds the mounted tracefs that has kprobe_events (new mount point first, then the debugfs one);
// `need: 'trace'` accepts one without (the flight recorder's overhead benchmark traces only events).
export function locateTracefs(
  sysRoot = '/sys',
  need: 'kprobe' | 'trace' = 'kprobe',
): TracefsLocation {
  const candidates = [join(sysRoot, 'kernel/tracing'), join(sysRoot, 'kernel/debug/tracing')];
  let mountedWithout: string | null = null;
  for (const dir of candidates) {
    if (existsSync(join(dir, 'kprobe_events'))) return { dir };
    if (existsSync(join(dir, 'trace'))) {
      if (need === 'trace') return { dir };
      mountedWithout = dir;
    }
  }
  if (mountedWithout) {
    return {
      error: `tracefs at ${mountedWithout} has no kprobe_events (the kernel lacks CONFIG_KPROBE_EVENTS)`,
    };
  }
  return {
    error: `tracefs is not mounted (looked in ${candidates.join(' and ')}); mount it with: mount -t tracefs nodev ${candidates[0]!}`,
  };
}

/** The lockdown mode, or null when the kernel has no lockdown LSM file. */
export function readLockdown(sysRoot = '/sys'): 'none' | 'integrity' | 'confidentiality' | null {
  try {
    return parseLockdown(readFileSync(join(sysRoot, 'kernel/security/lockdown'), 'utf8'));
  } catch {
    return null;
  }
}

/** The probe point this kernel offers, or why there is none. */
export type ProbePointChoice =
  { point: XrunProbePoint; skipped: string[] } | { point: null; reason: string };

// Picks the xrun probe point from /proc/kallsyms and the kprobe blacklist (debugfs, optional).
export function findProbePoint(procRoot = '/proc', sysRoot = '/sys'): ProbePointChoice {
  let kallsyms: string;
  try {
    kallsyms = readKallsyms(procRoot);
  } catch (err) {
    return {
      point: null,
      reason: `cannot read ${join(procRoot, 'kallsyms')} (${errnoCode(err) ?? String(err)})`,
    };
  }
  const symbols = findTextSymbols(
    kallsyms,
    XRUN_PROBE_POINTS.map((p) => p.symbol),
  );
  let blacklist = new Set<string>();
  try {
    blacklist = parseKprobeBlacklist(
      readFileSync(join(sysRoot, 'kernel/debug/kprobes/blacklist'), 'utf8'),
    );
  } catch {
    // debugfs not mounted: the kernel refuses a blacklisted symbol itself (EINVAL).
  }
  const point = chooseProbePoint(symbols, blacklist);
  if (!point) {
    return {
      point: null,
      reason:
        symbols.size === 0
          ? 'neither __snd_pcm_xrun nor snd_pcm_stop is in /proc/kallsyms (is snd-pcm loaded? run: modprobe snd-pcm)'
          : `the xrun functions are blacklisted for kprobes (${[...symbols].join(', ')})`,
    };
  }
  const skipped = XRUN_PROBE_POINTS.slice(0, XRUN_PROBE_POINTS.indexOf(point)).map(
    (p) =>
      `${p.symbol}: ${symbols.has(p.symbol) ? 'blacklisted for kprobes' : 'not in /proc/kallsyms'}`,
  );
  return { point, skipped };
}

// Says whether the probe on `symbol` is armed ('unknown' without debugfs).
export function probeArmState(symbol: string, sysRoot = '/sys'): ProbeArmState | 'unknown' {
  try {
    return parseKprobeList(
      readFileSync(join(sysRoot, 'kernel/debug/kprobes/list'), 'utf8'),
      symbol,
    );
  } catch {
    return 'unknown';
  }
}

/** The errno behind a settingFileError (it keeps the Node error as its cause). */
export function causeErrno(err: unknown): string | undefined {
  return errnoCode(err) ?? errnoCode((err as { cause?: unknown } | null)?.cause);
}

/**
 * The user's error when writing a tracefs file failed (kprobe backend and flight recorder alike):
 * what failed, why (root, lockdown, a missing kernel option) and what to do.
 */
export function tracefsWriteError(
  o: { euid: number; sysRoot: string; file: string; prefix?: string },
  err: unknown,
): XrunhuntError {
  const errno = causeErrno(err);
  const why = explainKprobeFailure({
    euid: o.euid,
    lockdown: readLockdown(o.sysRoot),
    errno,
    file: o.file,
  });
  return new XrunhuntError(
    errno === 'ENOENT' ? 'unsupported' : 'permission',
    `${o.prefix ?? ''}${why.message}`,
    { hint: why.hint, cause: err },
  );
}
