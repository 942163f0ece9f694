// Host facts a session records (report header, bundle host block): kernel release and
// version, preemption model, HZ, the config flags that decide what can be seen, cards,
// CPUs, memory, threadirqs. The deciding is pure (decidePreempt); reading is a thin shell.
import * as nodeFs from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import type { BundleHost, PreemptModel } from '../bundle/index.js';
import type { AsoundDiscovery, KernelConfig } from '../proc/index.js';
import { configEnabled, readKernelConfig, readKernelRelease } from '../proc/index.js';
import type { SessionHostSummary } from './events.js';

/** Config options worth recording in a bundle (what can be seen, and what shapes latency). */
export const RECORDED_CONFIG_FLAGS = [
  'SND_DEBUG',
  'SND_PCM_XRUN_DEBUG',
  'SND_VERBOSE_PROCFS',
  'KPROBES',
  'KPROBE_EVENTS',
  'PREEMPT_NONE',
  'PREEMPT_VOLUNTARY',
  'PREEMPT',
  'PREEMPT_RT',
  'PREEMPT_DYNAMIC',
  'IRQ_FORCED_THREADING',
  'NO_HZ_FULL',
  'HIGH_RES_TIMERS',
] as const;

export interface PreemptInputs {
  /** `uname -v`. */
  kernelVersion: string;
  /** /proc/cmdline. */
  cmdline: string;
  /** /sys/kernel/debug/sched/preempt, e.g. "none (voluntary) full" (null: unreadable). */
  dynamicPreempt: string | null;
  config: KernelConfig | undefined;
}

/** Decides the running preemption model from what the kernel exposes (pure). */
export function decidePreempt(i: PreemptInputs): PreemptModel {
  if (/PREEMPT_RT/.test(i.kernelVersion) || (i.config && configEnabled(i.config, 'PREEMPT_RT'))) {
    return 'rt';
  }
  const dyn = i.dynamicPreempt ? /\((\w+)\)/.exec(i.dynamicPreempt)?.[1] : undefined;
  if (dyn === 'none' || dyn === 'voluntary' || dyn === 'full') return dyn;
  const arg = /(?:^|\s)preempt=(none|voluntary|full)(?:\s|$)/.exec(i.cmdline)?.[1];
  if (arg === 'none' || arg === 'voluntary' || arg === 'full') return arg;
  if (/PREEMPT_DYNAMIC/.test(i.kernelVersion)) {
    // Dynamic kernels boot with their configured default.
    if (i.config && configEnabled(i.config, 'PREEMPT')) return 'full';
    if (i.config && configEnabled(i.config, 'PREEMPT_VOLUNTARY')) return 'voluntary';
    if (i.config && configEnabled(i.config, 'PREEMPT_NONE')) return 'none';
    return 'unknown';
  }
  if (/\bPREEMPT\b/.test(i.kernelVersion)) return 'full';
  if (i.config) {
    if (configEnabled(i.config, 'PREEMPT_VOLUNTARY')) return 'voluntary';
    if (configEnabled(i.config, 'PREEMPT_NONE')) return 'none';
  }
  return 'unknown';
}

export interface HostFacts {
  summary: SessionHostSummary;
  bundle: BundleHost;
  configSource: string | undefined;
}

const readOr = (path: string, fallback: string | null): string | null => {
  try {
    return nodeFs.readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
};

/** Reads the host facts (procRoot/sysRoot/bootRoot let tests use a fake tree). */
export function gatherHostFacts(
  discovery: AsoundDiscovery,
  roots: { procRoot: string; sysRoot: string; bootRoot: string },
): HostFacts {
  const release = readKernelRelease(roots.procRoot);
  const kernelVersion =
    readOr(join(roots.procRoot, 'sys/kernel/version'), null)?.trim() ?? os.version();
  const cmdline = readOr(join(roots.procRoot, 'cmdline'), '') ?? '';
  const cfg = readKernelConfig({ procRoot: roots.procRoot, bootRoot: roots.bootRoot, release });
  const preempt = decidePreempt({
    kernelVersion,
    cmdline,
    dynamicPreempt: readOr(join(roots.sysRoot, 'kernel/debug/sched/preempt'), null),
    config: cfg.config,
  });
  const configFlags: Record<string, boolean> = {};
  if (cfg.config)
    for (const f of RECORDED_CONFIG_FLAGS) configFlags[f] = configEnabled(cfg.config, f);
  const hzText = cfg.config?.get('HZ') ?? null;
  const threadirqs = /(?:^|\s)threadirqs(?:\s|$)/.test(cmdline) || preempt === 'rt';
  const summary: SessionHostSummary = {
    kernelRelease: release,
    kernelVersion,
    arch: os.arch() === 'x64' ? 'x86_64' : os.arch(),
    preempt,
    cpus: os.availableParallelism(),
    threadirqs,
    xrunDebugAvailable: discovery.streams.some((s) => s.xrunDebugPath !== undefined),
  };
  return {
    summary,
    configSource: cfg.source,
    bundle: {
      kernelRelease: release,
      kernelVersion,
      arch: summary.arch,
      preempt,
      hz: hzText && /^\d+$/.test(hzText) ? Number(hzText) : null,
      configFlags,
      cards: discovery.cards.map((c) => ({
        index: c.index,
        id: c.id ?? `card${c.index}`,
        driver: c.driver ?? '',
        name: c.shortName ?? c.longName ?? '',
      })),
      cpus: summary.cpus,
      memBytes: os.totalmem(),
      threadirqs,
    },
  };
}
