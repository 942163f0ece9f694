// The IO shell of doctor: reads everything the checks need from injectable roots
// (`procRoot`, `sysRoot`, `bootRoot`, `devRoot`) so tests run on fake trees and a copied tree
// can be inspected. Never throws for a missing or unreadable file: that is a fact too.
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { errnoCode } from '../errors.js';
import { readKallsyms } from '../proc/kallsyms-read.js';
import { discoverAsound, readKernelConfig, readKernelRelease } from '../proc/index.js';
import type {
  AudioProcess,
  DoctorFacts,
  DoctorRoots,
  MaybeText,
  SubstreamHolder,
} from './facts.js';
import { parseCapEff, parseEffectiveUid, parseRtprioLimit } from './proc-text-formats.js';

/** Process names of sound servers that open ALSA devices and keep them. */
export const AUDIO_SERVER_NAMES = [
  'pipewire',
  'pipewire-pulse',
  'wireplumber',
  'pulseaudio',
  'jackd',
  'jackdbus',
  'esd',
  'artsd',
];

export const DEFAULT_ROOTS: DoctorRoots = {
  procRoot: '/proc',
  sysRoot: '/sys',
  bootRoot: '/boot',
  devRoot: '/dev',
};

// A read's text, or why it failed (its errno), for facts that record both.
function maybeText(read: () => string): MaybeText {
  try {
    return { text: read(), error: undefined };
  } catch (err) {
    return { text: undefined, error: errnoCode(err) ?? (err as Error).message };
  }
}

function readText(path: string): MaybeText {
  return maybeText(() => nodeFs.readFileSync(path, 'utf8'));
}

function readTrimmed(path: string): string | undefined {
  return readText(path).text?.trim();
}

function readInt(path: string): number | undefined {
  const t = readTrimmed(path);
  return t !== undefined && /^-?\d+$/.test(t) ? Number(t) : undefined;
}

function listDir(path: string): string[] {
  try {
    return nodeFs.readdirSync(path);
  } catch {
    return [];
  }
}

function processes(procRoot: string): AudioProcess[] {
  const out: AudioProcess[] = [];
  for (const name of listDir(procRoot)) {
    if (!/^\d+$/.test(name)) continue;
    const comm = readTrimmed(join(procRoot, name, 'comm'));
    if (comm !== undefined && AUDIO_SERVER_NAMES.includes(comm))
      out.push({ pid: Number(name), comm });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

function tracing(procRoot: string, sysRoot: string): DoctorFacts['tracing'] {
  let tracefs: string | undefined;
  let tracefsError: string | undefined;
  for (const dir of [join(sysRoot, 'kernel/tracing'), join(sysRoot, 'kernel/debug/tracing')]) {
    try {
      const names = nodeFs.readdirSync(dir);
      if (names.length > 0) {
        tracefs = dir;
        break;
      }
      tracefsError ??= `${dir} is empty (tracefs not mounted)`;
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'EACCES' || code === 'EPERM')
        tracefsError = `${dir}: permission denied (tracefs needs root)`;
      else tracefsError ??= `${dir}: ${code ?? (err as Error).message}`;
    }
  }
  const kallsyms = maybeText(() => readKallsyms(procRoot));
  return {
    tracefs,
    tracefsError: tracefs ? undefined : tracefsError,
    sndPcmEvents: tracefs !== undefined && nodeFs.existsSync(join(tracefs, 'events/snd_pcm')),
    kprobeEvents: tracefs !== undefined && nodeFs.existsSync(join(tracefs, 'kprobe_events')),
    kallsymsXrun:
      kallsyms.text === undefined ? undefined : /\s__snd_pcm_xrun(\s|$)/m.test(kallsyms.text),
  };
}

function kmsgAccess(devRoot: string): { kmsgReadable: boolean; kmsgError: string | undefined } {
  try {
    // Non-blocking: a blocking open/read of /dev/kmsg can park a libuv thread (platform-facts §5).
    const fd = nodeFs.openSync(
      join(devRoot, 'kmsg'),
      nodeFs.constants.O_RDONLY | nodeFs.constants.O_NONBLOCK,
    );
    nodeFs.closeSync(fd);
    return { kmsgReadable: true, kmsgError: undefined };
  } catch (err) {
    return { kmsgReadable: false, kmsgError: errnoCode(err) ?? (err as Error).message };
  }
}

/** Gathers doctor's facts from the given roots (default: the running system). */
export function gatherFacts(roots: Partial<DoctorRoots> = {}): DoctorFacts {
  const r: DoctorRoots = { ...DEFAULT_ROOTS, ...roots };
  const release = readKernelRelease(r.procRoot);
  const config = readKernelConfig({ procRoot: r.procRoot, bootRoot: r.bootRoot, release });
  const asound = discoverAsound(r.procRoot);
  const holders: SubstreamHolder[] = [];
  for (const s of asound.streams) {
    for (const sub of s.substreams) {
      if (!sub.status?.open) continue;
      const pid = sub.status.ownerPid;
      holders.push({
        pcm: s.pcm,
        sub: sub.index,
        state: sub.status.state,
        pid,
        comm: pid === undefined ? undefined : readTrimmed(join(r.procRoot, String(pid), 'comm')),
      });
    }
  }
  const status = readText(join(r.procRoot, 'self/status')).text ?? '';
  const limits = parseRtprioLimit(readText(join(r.procRoot, 'self/limits')).text ?? '');
  const cpufreq: { cpu: number; governor: string }[] = [];
  const cpuDir = join(r.sysRoot, 'devices/system/cpu');
  for (const name of listDir(cpuDir)) {
    if (!/^cpu\d+$/.test(name)) continue;
    const g = readTrimmed(join(cpuDir, name, 'cpufreq/scaling_governor'));
    if (g) cpufreq.push({ cpu: Number(name.slice(3)), governor: g });
  }
  cpufreq.sort((a, b) => a.cpu - b.cpu);
  return {
    roots: r,
    kernel: {
      release,
      version: readTrimmed(join(r.procRoot, 'sys/kernel/version')),
      cmdline: readTrimmed(join(r.procRoot, 'cmdline')),
    },
    config: {
      options: config.config ? Object.fromEntries(config.config) : undefined,
      source: config.source,
      tried: config.tried,
    },
    asound,
    holders,
    audioServers: processes(r.procRoot),
    user: {
      euid: parseEffectiveUid(status) ?? process.geteuid?.() ?? -1,
      capEff: parseCapEff(status),
      rtprioSoft: limits?.soft,
      rtprioHard: limits?.hard,
    },
    kernelLog: {
      ...kmsgAccess(r.devRoot),
      dmesgRestrict: readInt(join(r.procRoot, 'sys/kernel/dmesg_restrict')),
      kptrRestrict: readInt(join(r.procRoot, 'sys/kernel/kptr_restrict')),
    },
    preempt: {
      debugfs: readTrimmed(join(r.sysRoot, 'kernel/debug/sched/preempt')),
      realtime: readTrimmed(join(r.sysRoot, 'kernel/realtime')),
    },
    cpufreq,
    interrupts: readText(join(r.procRoot, 'interrupts')).text,
    tracing: tracing(r.procRoot, r.sysRoot),
  };
}
