// doctor's checks: pure functions of DoctorFacts, each answering one question with ok / warn /
// fail, one line of why and one of what to do. A `fail` blocks a diagnosis (exit 2); a
// `warn` makes one less clear. The conclusion comes first, in the spirit of rtcqs and
// LatencyMon: can this machine be diagnosed, and what stands in the way.
import type { DoctorFacts } from './facts.js';
import type { CaptureChoice } from './capture-backend.js';
import { chooseCaptureBackend } from './capture-backend.js';
import { hasCapSysNice, parseDebugfsPreempt, parseInterrupts } from './proc-text-formats.js';
import { decodeXrunDebugMask, explainXrunDebugAbsence } from '../proc/index.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  id: string;
  status: CheckStatus;
  summary: string;
  /** What to do; empty when nothing needs doing. */
  advice: string;
}

export interface DoctorReport {
  diagnosable: boolean;
  /** One line: can this machine be diagnosed, and the main reason if not. */
  conclusion: string;
  capture: CaptureChoice;
  checks: Check[];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function configMap(f: DoctorFacts): Map<string, string | null> | undefined {
  return f.config.options ? new Map(Object.entries(f.config.options)) : undefined;
}

/** Sound cards and PCM streams. */
export function checkSound(f: DoctorFacts): Check {
  const a = f.asound;
  if (!a.present) {
    const cfg = f.config.options;
    const noSnd = cfg !== undefined && cfg['SND'] !== 'y' && cfg['SND'] !== 'm';
    return {
      id: 'sound',
      status: 'fail',
      summary: noSnd
        ? `kernel ${f.kernel.release} was built without sound support (CONFIG_SND is not set): no ${a.asoundDir}`
        : `no ${a.asoundDir}: kernel ${f.kernel.release} has no sound driver loaded`,
      advice: noSnd
        ? 'nothing to diagnose on this kernel; run "xrunhunt lab" to diagnose a real kernel in a VM'
        : 'load your sound card driver (or "modprobe snd-dummy" to test), or run "xrunhunt lab"',
    };
  }
  if (a.cards.length === 0) {
    return {
      id: 'sound',
      status: 'fail',
      summary: 'ALSA is loaded but there is no sound card',
      advice: 'load your sound card driver (or "modprobe snd-dummy" to test)',
    };
  }
  const playback = a.streams.filter((s) => s.stream === 'playback');
  const cards = a.cards
    .map((c) => `card ${c.index} ${c.id ?? '?'}${c.driver ? ` (${c.driver})` : ''}`)
    .join(', ');
  if (playback.length === 0) {
    return {
      id: 'sound',
      status: 'fail',
      summary: `${plural(a.cards.length, 'card')} (${cards}) but no playback PCM`,
      advice: 'xrunhunt plays audio to provoke xruns: it needs a playback device',
    };
  }
  return {
    id: 'sound',
    status: a.warnings.length > 0 ? 'warn' : 'ok',
    summary: `${plural(a.cards.length, 'card')}, ${plural(a.streams.length, 'PCM stream')}: ${cards}`,
    advice:
      a.warnings.length > 0
        ? `some files could not be read: ${a.warnings.slice(0, 3).join('; ')}`
        : '',
  };
}

/** Whether the kernel's xrun_debug files exist, and why not. */
export function checkXrunDebug(f: DoctorFacts, capture: CaptureChoice): Check {
  const withFile = f.asound.streams.filter((s) => s.xrunDebugPath !== undefined);
  if (withFile.length > 0) {
    const on = withFile.filter((s) => s.mask !== undefined && (s.mask & 3) === 3);
    const masks = [...new Set(withFile.map((s) => (s.mask === undefined ? '?' : String(s.mask))))];
    const notes = [
      ...new Set(
        withFile.flatMap((s) =>
          s.mask === undefined ? [] : decodeXrunDebugMask(s.mask, f.kernel.release).notes,
        ),
      ),
    ];
    return {
      id: 'xrun_debug',
      status: 'ok',
      summary:
        `present on ${plural(withFile.length, 'stream')} (mask${masks.length > 1 ? 's' : ''} ${masks.join(', ')}` +
        `${on.length === withFile.length ? ': messages and stack dumps already on' : ''})` +
        (notes.length ? `; ${notes.join('; ')}` : ''),
      advice:
        on.length === withFile.length
          ? ''
          : 'a session turns it on (mask 3) and restores it afterwards',
    };
  }
  if (f.asound.streams.length === 0) {
    return {
      id: 'xrun_debug',
      status: capture.usable ? 'warn' : 'fail',
      summary: 'not available: no sound card / PCM stream (see "sound")',
      advice: '',
    };
  }
  const why = explainXrunDebugAbsence({
    procRoot: f.roots.procRoot,
    asoundPresent: f.asound.present,
    cardCount: f.asound.cards.length,
    streamCount: f.asound.streams.length,
    kernelRelease: f.kernel.release,
    config: configMap(f),
    configSource: f.config.source,
    configTried: f.config.tried,
  });
  return {
    id: 'xrun_debug',
    status: capture.usable ? 'warn' : 'fail',
    summary: `not available: ${why.message}`,
    advice: capture.usable ? `${capture.backend} capture stands in for it` : why.hint,
  };
}

/** Which kernel capture backend a session would use. */
export function checkCapture(capture: CaptureChoice): Check {
  return {
    id: 'capture',
    status: capture.usable ? 'ok' : 'fail',
    summary:
      `${capture.backend}: ${capture.reason}` +
      `; this kernel offers: ${capture.offered.length ? capture.offered.join(', ') : 'none'}`,
    advice: capture.advice,
  };
}

/** Kernel log access (where XRUN dumps appear). */
export function checkKernelLog(f: DoctorFacts, capture: CaptureChoice): Check {
  const k = f.kernelLog;
  const settings = [
    k.dmesgRestrict !== undefined ? `kernel.dmesg_restrict=${k.dmesgRestrict}` : undefined,
    k.kptrRestrict !== undefined ? `kernel.kptr_restrict=${k.kptrRestrict}` : undefined,
  ].filter((x) => x !== undefined);
  const tail = settings.length ? ` (${settings.join(', ')})` : '';
  if (k.kmsgReadable) {
    return { id: 'kernel_log', status: 'ok', summary: `/dev/kmsg is readable${tail}`, advice: '' };
  }
  const needed = capture.backend === 'xrun_debug';
  const restricted = k.dmesgRestrict === 1 && f.user.euid !== 0;
  return {
    id: 'kernel_log',
    status: needed ? 'fail' : 'warn',
    summary: `/dev/kmsg is not readable: ${k.kmsgError ?? 'unknown error'}${tail}`,
    advice: restricted
      ? 'run as root, or "sysctl kernel.dmesg_restrict=0" (needs root) to let users read the kernel log'
      : 'run as root; XRUN stack dumps are printed to the kernel log',
  };
}

/** Root, RLIMIT_RTPRIO and CAP_SYS_NICE: real-time playback and changing kernel settings. */
export function checkPrivileges(f: DoctorFacts): Check {
  const u = f.user;
  if (u.euid === 0) {
    return {
      id: 'privileges',
      status: 'ok',
      summary: 'running as root: real-time priority and kernel settings available',
      advice: '',
    };
  }
  const rt = u.rtprioSoft !== undefined && u.rtprioSoft !== '0';
  const nice = hasCapSysNice(u.capEff);
  const rtText = rt
    ? `RLIMIT_RTPRIO ${u.rtprioSoft}`
    : nice
      ? 'CAP_SYS_NICE'
      : 'no RLIMIT_RTPRIO and no CAP_SYS_NICE';
  return {
    id: 'privileges',
    status: 'warn',
    summary: `not root (uid ${u.euid}); real-time scheduling: ${rtText}`,
    advice:
      (rt || nice
        ? ''
        : 'without real-time priority the player itself causes xruns: add the user to the "audio" group with an rtprio limit (/etc/security/limits.d), or run as root. ') +
      'Turning on xrun_debug or a kprobe needs root.',
  };
}

/** The active preemption model. */
export function checkPreemption(f: DoctorFacts): Check {
  const cfg = f.config.options ?? {};
  const version = f.kernel.version ?? '';
  const cmdlinePreempt = /(?:^|\s)preempt=(\w+)/.exec(f.kernel.cmdline ?? '')?.[1];
  let model: string | undefined;
  let source = '';
  if (f.preempt.realtime === '1' || /\bPREEMPT_RT\b/.test(version) || cfg['PREEMPT_RT'] === 'y') {
    model = 'rt';
    source = f.preempt.realtime === '1' ? '/sys/kernel/realtime' : 'PREEMPT_RT kernel';
  } else if (f.preempt.debugfs && parseDebugfsPreempt(f.preempt.debugfs)) {
    model = parseDebugfsPreempt(f.preempt.debugfs);
    source = '/sys/kernel/debug/sched/preempt';
  } else if (
    cmdlinePreempt &&
    (/PREEMPT_DYNAMIC/.test(version) || cfg['PREEMPT_DYNAMIC'] === 'y')
  ) {
    model = cmdlinePreempt;
    source = 'preempt= on the kernel command line';
  } else if (
    cfg['PREEMPT'] === 'y' ||
    cfg['PREEMPT_LAZY'] === 'y' ||
    cfg['PREEMPT_VOLUNTARY'] === 'y' ||
    cfg['PREEMPT_NONE'] === 'y'
  ) {
    model =
      cfg['PREEMPT'] === 'y'
        ? 'full'
        : cfg['PREEMPT_LAZY'] === 'y'
          ? 'lazy'
          : cfg['PREEMPT_VOLUNTARY'] === 'y'
            ? 'voluntary'
            : 'none';
    source =
      cfg['PREEMPT_DYNAMIC'] === 'y'
        ? 'build default of a PREEMPT_DYNAMIC kernel'
        : 'kernel config';
  } else if (/\bPREEMPT\b/.test(version)) {
    model = 'full';
    source = 'uname -v';
  }
  const dynamic = /PREEMPT_DYNAMIC/.test(version) || cfg['PREEMPT_DYNAMIC'] === 'y';
  if (model === undefined) {
    return {
      id: 'preemption',
      status: 'warn',
      summary: `preemption model unknown (uname -v: ${version || 'unreadable'})`,
      advice: dynamic ? 'mount debugfs to read /sys/kernel/debug/sched/preempt' : '',
    };
  }
  const good = model === 'full' || model === 'rt' || model === 'lazy';
  return {
    id: 'preemption',
    status: good ? 'ok' : 'warn',
    summary: `preemption model "${model}" (${source})${dynamic && model !== 'rt' ? ', switchable (PREEMPT_DYNAMIC)' : ''}`,
    advice: good
      ? ''
      : dynamic
        ? `long kernel sections can delay the audio thread under "${model}"; compare with "preempt=full" on the kernel command line`
        : `long kernel sections can delay the audio thread under "${model}"; a PREEMPT or PREEMPT_RT kernel is the usual cure`,
  };
}

/** Threaded interrupt handlers (threadirqs or PREEMPT_RT). */
export function checkThreadirqs(f: DoctorFacts): Check {
  const cmdline = f.kernel.cmdline;
  const rt = f.preempt.realtime === '1' || /\bPREEMPT_RT\b/.test(f.kernel.version ?? '');
  if (cmdline === undefined)
    return {
      id: 'threadirqs',
      status: 'warn',
      summary: 'kernel command line unreadable',
      advice: '',
    };
  if (rt || /(?:^|\s)threadirqs(?:\s|$)/.test(cmdline)) {
    return {
      id: 'threadirqs',
      status: 'ok',
      summary: rt
        ? 'interrupt handlers are threads (PREEMPT_RT)'
        : 'threadirqs is on the kernel command line',
      advice: '',
    };
  }
  return {
    id: 'threadirqs',
    status: 'warn',
    summary: 'threadirqs is not on the kernel command line',
    advice:
      'with "threadirqs" the sound card\'s interrupt thread can be given a higher priority (rtirq)',
  };
}

/** Timer frequency. */
export function checkHz(f: DoctorFacts): Check {
  const hz = f.config.options?.['HZ'];
  if (hz === undefined || hz === null)
    return {
      id: 'hz',
      status: 'warn',
      summary: 'HZ unknown (kernel config not found)',
      advice: f.config.tried.length ? `tried ${f.config.tried.map((t) => t.path).join(', ')}` : '',
    };
  const n = Number(hz);
  return {
    id: 'hz',
    status: n < 250 ? 'warn' : 'ok',
    summary: `HZ=${hz}${f.config.options?.['NO_HZ_FULL'] === 'y' ? ' (NO_HZ_FULL)' : ''}`,
    advice:
      n < 250
        ? 'jiffies-based timers (snd-aloop default, the jiffies check) are coarse at this HZ'
        : '',
  };
}

/** CPU frequency governors. */
export function checkCpufreq(f: DoctorFacts): Check {
  if (f.cpufreq.length === 0)
    return {
      id: 'cpufreq',
      status: 'ok',
      summary: 'no CPU frequency scaling exposed (fixed clock or VM)',
      advice: '',
    };
  const byGov = new Map<string, number[]>();
  for (const c of f.cpufreq) byGov.set(c.governor, [...(byGov.get(c.governor) ?? []), c.cpu]);
  const text = [...byGov].map(([g, cpus]) => `${g} on ${plural(cpus.length, 'CPU')}`).join(', ');
  const allPerf = byGov.size === 1 && byGov.has('performance');
  return {
    id: 'cpufreq',
    status: allPerf ? 'ok' : 'warn',
    summary: `governor: ${text}`,
    advice: allPerf
      ? ''
      : 'frequency changes add latency; for a diagnosis set "performance" (cpupower frequency-set -g performance)',
  };
}

/** Who holds the sound devices. */
export function checkDeviceHolders(f: DoctorFacts): Check {
  const holders = f.holders.map(
    (h) =>
      `${h.pcm} sub${h.sub} ${h.state ?? 'open'} by ${h.comm ?? '?'}${h.pid !== undefined ? ` (pid ${h.pid})` : ''}`,
  );
  const servers = f.audioServers.map((p) => `${p.comm} (pid ${p.pid})`);
  if (holders.length === 0) {
    return {
      id: 'device_holders',
      status: 'ok',
      summary: `no PCM is open${servers.length ? `; sound servers running: ${servers.join(', ')}` : ''}`,
      advice: '',
    };
  }
  return {
    id: 'device_holders',
    status: 'warn',
    summary: `in use: ${holders.join('; ')}`,
    advice:
      'xrunhunt needs the device itself for exact timing: stop the holder for the diagnosis ' +
      '(systemctl --user stop pipewire.socket pipewire wireplumber / pulseaudio --kill), or pick another card',
  };
}

/** The sound cards' interrupt lines and whether they are shared. */
export function checkIrq(f: DoctorFacts): Check {
  if (f.asound.cards.length === 0)
    return {
      id: 'irq',
      status: 'ok',
      summary: 'no sound card, no interrupt line to check',
      advice: '',
    };
  if (f.interrupts === undefined)
    return { id: 'irq', status: 'warn', summary: '/proc/interrupts unreadable', advice: '' };
  const lines = parseInterrupts(f.interrupts);
  const parts: string[] = [];
  const shared: string[] = [];
  for (const card of f.asound.cards) {
    const name = `card ${card.index}${card.id ? ` ${card.id}` : ''}`;
    const fromName = /\birq (\d+)\b/.exec(card.longName ?? '')?.[1];
    const line =
      lines.find((l) => fromName !== undefined && l.irq === Number(fromName)) ??
      lines.find((l) => l.actions.some((a) => a.endsWith(`:card${card.index}`)));
    if (!line) {
      const usb = /usb/i.test(card.driver ?? '');
      parts.push(
        usb
          ? `${name}: USB audio (interrupts come from the USB host controller)`
          : `${name}: no interrupt line of its own (timer-driven or virtual)`,
      );
      continue;
    }
    parts.push(`${name}: IRQ ${line.irq} (${line.actions.join(', ') || 'no handler'})`);
    if (line.actions.length > 1)
      shared.push(
        `IRQ ${line.irq} of ${name} is shared with ${line.actions.filter((a) => !/snd/.test(a)).join(', ') || 'other handlers'}`,
      );
  }
  return {
    id: 'irq',
    status: shared.length ? 'warn' : 'ok',
    summary: shared.length ? shared.join('; ') : parts.join('; '),
    advice: shared.length
      ? 'a shared line runs other handlers before the sound interrupt: move the card to another slot, enable MSI, or use threadirqs + rtirq'
      : '',
  };
}

/** Runs every check and draws the conclusion. */
export function runChecks(f: DoctorFacts): DoctorReport {
  const capture = chooseCaptureBackend(f);
  const checks: Check[] = [
    checkSound(f),
    checkXrunDebug(f, capture),
    checkCapture(capture),
    checkKernelLog(f, capture),
    checkPrivileges(f),
    checkPreemption(f),
    checkThreadirqs(f),
    checkHz(f),
    checkCpufreq(f),
    checkDeviceHolders(f),
    checkIrq(f),
  ];
  const fails = checks.filter((c) => c.status === 'fail');
  const warns = checks.filter((c) => c.status === 'warn');
  const diagnosable = fails.length === 0;
  const conclusion = diagnosable
    ? `This machine can be diagnosed: kernel XRUN stacks via ${capture.backend}` +
      (warns.length
        ? `; ${plural(warns.length, 'warning')} (${warns.map((w) => w.id).join(', ')})`
        : '') +
      '.'
    : `This machine cannot be diagnosed as it is: ${fails[0]!.summary}` +
      (fails.length > 1
        ? ` (also failing: ${fails
            .slice(1)
            .map((c) => c.id)
            .join(', ')})`
        : '') +
      '.' +
      (fails[0]!.advice ? ` What to do: ${fails[0]!.advice}.` : '');
  return { diagnosable, conclusion, capture, checks };
}
