// Which kernel facility a session would use to see XRUN stacks, in order of preference:
// xrun_debug (the kernel prints the stack itself), the snd_pcm tracepoints, a kprobe on
// __snd_pcm_xrun (works on stock distribution kernels; platform-facts §5b), or none (then
// only userspace xruns and timing can be measured).
import type { DoctorFacts } from './facts.js';

export type CaptureBackend = 'xrun_debug' | 'tracepoints' | 'kprobe' | 'none';

export interface CaptureChoice {
  backend: CaptureBackend;
  /** Whether it can be used as this user right now. */
  usable: boolean;
  /** Why it was chosen, or what is missing. */
  reason: string;
  /** What would make it usable (empty when usable). */
  advice: string;
  /** Every backend this kernel offers, best first (usable or not as this user). */
  offered: CaptureBackend[];
}

// Lists the capture facilities the kernel has at all, so doctor can say what else would work.
export function offeredCaptureBackends(f: DoctorFacts): CaptureBackend[] {
  const out: CaptureBackend[] = [];
  if (f.asound.streams.some((s) => s.xrunDebugPath !== undefined)) out.push('xrun_debug');
  if (f.tracing.sndPcmEvents) out.push('tracepoints');
  if (f.tracing.kprobeEvents && f.tracing.kallsymsXrun !== false) out.push('kprobe');
  return out;
}

const ROOT_ADVICE = 'run xrunhunt as root (sudo)';

/** Picks the capture backend from gathered facts. */
export function chooseCaptureBackend(f: DoctorFacts): CaptureChoice {
  return { ...chooseBackend(f), offered: offeredCaptureBackends(f) };
}

function chooseBackend(f: DoctorFacts): Omit<CaptureChoice, 'offered'> {
  const root = f.user.euid === 0;
  const withFile = f.asound.streams.filter((s) => s.xrunDebugPath !== undefined);
  if (withFile.length > 0) {
    const alreadyOn = withFile.some((s) => s.mask !== undefined && (s.mask & 1) === 1);
    if (!f.kernelLog.kmsgReadable) {
      return {
        backend: 'xrun_debug',
        usable: false,
        reason: `xrun_debug exists on ${withFile.length} streams but the kernel log cannot be read (${f.kernelLog.kmsgError ?? 'unknown error'})`,
        advice: root
          ? 'check access to /dev/kmsg'
          : `${ROOT_ADVICE}, or set kernel.dmesg_restrict=0`,
      };
    }
    if (!root && !alreadyOn) {
      return {
        backend: 'xrun_debug',
        usable: false,
        reason: `xrun_debug exists on ${withFile.length} streams but is off, and turning it on needs root`,
        advice: ROOT_ADVICE,
      };
    }
    return {
      backend: 'xrun_debug',
      usable: true,
      reason: `xrun_debug on ${withFile.length} stream${withFile.length === 1 ? '' : 's'}: the kernel prints a stack dump at each XRUN`,
      advice: '',
    };
  }
  if (f.tracing.sndPcmEvents) {
    return {
      backend: 'tracepoints',
      usable: root,
      reason: 'snd_pcm tracepoints in tracefs (no xrun_debug files)',
      advice: root ? '' : ROOT_ADVICE,
    };
  }
  if (f.tracing.kprobeEvents && f.tracing.kallsymsXrun) {
    return {
      backend: 'kprobe',
      usable: root,
      reason:
        'a kprobe on __snd_pcm_xrun with a stack trace (the kernel has no xrun_debug, but kprobes work)',
      advice: root ? '' : ROOT_ADVICE,
    };
  }
  const missing: string[] = [];
  if (f.asound.streams.length === 0) missing.push('no PCM stream');
  else missing.push('no xrun_debug files');
  if (f.tracing.tracefs === undefined) missing.push(f.tracing.tracefsError ?? 'no tracefs');
  else if (!f.tracing.kprobeEvents)
    missing.push('no kprobe_events in tracefs (CONFIG_KPROBE_EVENTS off)');
  if (f.tracing.kallsymsXrun === false)
    missing.push('__snd_pcm_xrun is not in /proc/kallsyms (snd-pcm not loaded?)');
  const needsRoot = !root && f.tracing.tracefsError?.includes('needs root') === true;
  return {
    backend: 'none',
    usable: false,
    reason: `no way to see XRUN stacks: ${missing.join('; ')}`,
    advice: needsRoot
      ? `${ROOT_ADVICE} (tracefs could not be checked)`
      : 'use a kernel with CONFIG_SND_PCM_XRUN_DEBUG or CONFIG_KPROBE_EVENTS, or run "xrunhunt lab"',
  };
}
