// Pure: varied synthetic bundles derived from one base bundle, for the scale benchmark and
// the store tests (many machines, kernels, drivers, preemption models, loads and offenders).
// Deterministic for a given index so runs are comparable. SYNTHETIC: these numbers say how
// the store scales, never anything about real kernels.
import type { Bundle, BundleEvent, PreemptModel } from './schema.js';

const KERNELS = [
  '5.10.0-33-amd64',
  '6.1.0-18-amd64',
  '6.1.0-28-amd64',
  '6.6.63-1-lts',
  '6.8.0-49-generic',
  '6.11.10-200.fc40.x86_64',
  '6.12.1-arch1-1',
  '6.12.5-rt5',
];
const PREEMPTS: PreemptModel[] = ['none', 'voluntary', 'full', 'rt'];
const DRIVERS = [
  'snd_hda_intel',
  'snd_usb_audio',
  'snd_sof_pci_intel_tgl',
  'snd_hdsp',
  'snd_ice1712',
  'snd_dummy',
];
const LOADS = ['idle', 'write', 'metadata', 'pagecache', 'fork'];

/** Offender shapes seen in real logs: [innermost frame after the IRQ boundary, offender, module]. */
const OFFENDERS: [string, string, string | null][] = [
  ['_raw_spin_unlock_irq', '__filemap_add_folio', null],
  ['_raw_spin_unlock_irqrestore', 'ext4_end_io_end', 'ext4'],
  ['_raw_spin_unlock_irq', 'shrink_inactive_list', null],
  ['_raw_spin_unlock_irqrestore', 'blk_mq_run_hw_queue', null],
  ['test_unlock', 'test_unlock', 'test_lockup'],
  ['_raw_spin_unlock_irq', 'finish_task_switch', null],
  ['_raw_spin_unlock_bh', 'tcp_recvmsg', null],
  ['native_flush_tlb_one_user', 'flush_tlb_func', null],
  ['_raw_spin_unlock_irqrestore', 'i915_request_retire', 'i915'],
  ['_raw_spin_unlock_irqrestore', 'nvme_irq', 'nvme'],
  ['_raw_spin_unlock_irq', 'zap_pte_range', null],
  ['_raw_spin_unlock_irqrestore', 'usb_hcd_giveback_urb', 'usbcore'],
];

/** Small deterministic hash → [0, 1). */
function rnd(i: number, salt: number): number {
  let x = (i * 2654435761 + salt * 40503) >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 2246822507) >>> 0;
  x ^= x >>> 13;
  x = Math.imul(x, 3266489909) >>> 0;
  x ^= x >>> 16;
  return (x >>> 0) / 4294967296;
}

const pick = <T>(list: readonly T[], i: number, salt: number): T =>
  list[Math.floor(rnd(i, salt) * list.length)]!;

function syntheticEvent(base: BundleEvent, i: number, k: number, load: string): BundleEvent {
  const r = rnd(i, 100 + k);
  const detector = base.frames.slice(0, base.frames.indexOf('</IRQ>') + 3);
  if (r < 0.12) {
    return {
      ...base,
      phase: load,
      offender: { class: 'idle', function: null, module: null, signature: null },
      frames: [...detector, 'RIP: cpuidle_enter_state', 'cpuidle_enter', 'do_idle'],
    };
  }
  if (r < 0.18) {
    return {
      ...base,
      phase: load,
      offender: { class: 'user', function: null, module: null, signature: null },
      frames: [...detector, 'RIP: 0033:0x7f3a1c2e4b3d'],
    };
  }
  // Skewed: low offender indexes are common (like real fleets: a few offenders dominate).
  const o = OFFENDERS[Math.floor(rnd(i, 200 + k) ** 2 * OFFENDERS.length)]!;
  const [top, fn, mod] = o;
  const f = (name: string, m: string | null): string => (m ? `${name} [${m}]` : name);
  const signature = top === fn ? f(fn, mod) : `${top} | ${f(fn, mod)}`;
  return {
    ...base,
    time: (base.time ?? 0) + k,
    phase: load,
    offender: { class: 'kernel', function: fn, module: mod, signature },
    frames: [
      ...detector,
      `RIP: ${top}`,
      f(fn, mod),
      'do_syscall_64',
      'entry_SYSCALL_64_after_hwframe',
    ],
  };
}

/**
 * The i-th bundle of a synthetic fleet of `machines` machines, built from `base` (a real
 * shaped bundle). Exists so benchmarks and tests exercise the store with fleet-like variety.
 */
export function syntheticBundle(base: Bundle, i: number, machines = 5000): Bundle {
  const machine = Math.floor(rnd(i, 1) * machines);
  const kernel = pick(KERNELS, machine, 2);
  const driver = pick(DRIVERS, machine, 3);
  const preempt = kernel.endsWith('-rt5') ? 'rt' : pick(PREEMPTS.slice(0, 3), machine, 4);
  const load = pick(LOADS, i, 5);
  const nEvents = 1 + Math.floor(rnd(i, 6) * 6);
  const template = base.events.find((e) => e.offender.class === 'kernel') ?? base.events[0]!;
  const events = Array.from({ length: nEvents }, (_, k) => syntheticEvent(template, i, k, load));
  const created = Date.UTC(2026, 0, 1) + Math.floor(rnd(i, 7) * 330 * 86_400_000);
  const playbackMs = 30_000 + Math.floor(rnd(i, 8) * 600_000);
  return {
    ...base,
    createdAt: new Date(created).toISOString(),
    machineId: `m${machine.toString(16).padStart(31, '0')}`,
    host: {
      ...base.host,
      kernelRelease: kernel,
      preempt,
      cards: [{ index: 0, id: 'C0', driver, name: driver }],
    },
    durationMs: playbackMs + 400,
    playbackMs,
    phases: [
      { name: load, kind: load, startMs: 0, endMs: playbackMs, throughput: null, xruns: nEvents },
    ],
    xruns: events.map((_, k) => ({
      timeMs: (k + 1) * 1000,
      durationMs: 2,
      phase: load,
      kernelEventIndex: k,
    })),
    events,
    offenders: [],
  };
}
