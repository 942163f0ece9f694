// The facts doctor's checks are computed from. Gathered once by an IO shell
// (gather-facts.ts) with injectable roots; the checks themselves are pure functions of this
// value, so a session or a bundle can carry the same facts and re-run them.
import type { AsoundDiscovery } from '../proc/index.js';

export interface DoctorRoots {
  procRoot: string;
  sysRoot: string;
  bootRoot: string;
  devRoot: string;
}

/** A file read that may fail: the text, or why not (`ENOENT`, `EACCES`, ...). */
export interface MaybeText {
  text: string | undefined;
  error: string | undefined;
}

export interface AudioProcess {
  pid: number;
  comm: string;
}

export interface SubstreamHolder {
  pcm: string;
  sub: number;
  state: string | undefined;
  pid: number | undefined;
  comm: string | undefined;
}

export interface DoctorFacts {
  roots: DoctorRoots;
  kernel: {
    release: string;
    /** `uname -v`: `#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-1 (2025-...)`. */
    version: string | undefined;
    cmdline: string | undefined;
  };
  config: {
    /** Option (without CONFIG_) → value; null = "is not set"; undefined when no config was found. */
    options: Record<string, string | null> | undefined;
    source: string | undefined;
    tried: { path: string; error: string }[];
  };
  asound: AsoundDiscovery;
  holders: SubstreamHolder[];
  /** Running sound servers (pipewire, pulseaudio, jackd, ...). */
  audioServers: AudioProcess[];
  user: {
    euid: number;
    /** CapEff from /proc/self/status, hex as printed there. */
    capEff: string | undefined;
    rtprioSoft: string | undefined;
    rtprioHard: string | undefined;
  };
  kernelLog: {
    kmsgReadable: boolean;
    kmsgError: string | undefined;
    dmesgRestrict: number | undefined;
    kptrRestrict: number | undefined;
  };
  preempt: {
    /** /sys/kernel/debug/sched/preempt: `none voluntary (full)`. */
    debugfs: string | undefined;
    /** /sys/kernel/realtime: `1` on PREEMPT_RT. */
    realtime: string | undefined;
  };
  cpufreq: { cpu: number; governor: string }[];
  /** /proc/interrupts text. */
  interrupts: string | undefined;
  tracing: {
    /** The tracefs folder that could be listed, if any. */
    tracefs: string | undefined;
    tracefsError: string | undefined;
    sndPcmEvents: boolean;
    kprobeEvents: boolean;
    /** Whether /proc/kallsyms lists __snd_pcm_xrun; undefined when unreadable. */
    kallsymsXrun: boolean | undefined;
  };
}
