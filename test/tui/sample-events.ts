// Session events of a short realistic session (plug:jack at 64-frame periods, a write phase
// with ext4 writeback offenders), for the dashboard tests. Synthetic, but the stacks are the
// shapes of real XRUN dumps (see test/fixtures/bundles/README.md).
import type { SessionEvent, SessionKernelEvent } from '../../src/session/events.js';

const EXT4_FRAMES = [
  'dump_stack_lvl',
  'snd_pcm_update_hw_ptr0 [snd_pcm]',
  'snd_pcm_period_elapsed_under_stream_lock [snd_pcm]',
  'snd_pcm_period_elapsed [snd_pcm]',
  'azx_interrupt [snd_hda_codec]',
  '__handle_irq_event_percpu',
  'handle_irq_event',
  'handle_edge_irq',
  '__common_interrupt',
  'common_interrupt',
  'asm_common_interrupt',
  '_raw_spin_unlock_irq',
  '__filemap_add_folio',
  'filemap_add_folio',
  'page_cache_ra_unbounded',
  'ext4_buffered_write_iter [ext4]',
  'vfs_write',
  'ksys_write',
  'do_syscall_64',
];

/** A kernel XRUN event whose offender is `fn` (kernel class) at session time `ms`. */
export function kernelEvent(
  ms: number,
  fn = '__filemap_add_folio',
  module: string | null = null,
): SessionKernelEvent {
  return {
    kind: 'xrun',
    pcm: 'pcmC0D0p',
    time: 1234.5 + ms / 1000,
    sessionMs: ms,
    phase: 'write',
    offender: { class: 'kernel', function: fn, module, signature: `_raw_spin_unlock_irq | ${fn}` },
    frames: EXT4_FRAMES.map((f) =>
      f === '__filemap_add_folio' ? (module ? `${fn} [${module}]` : fn) : f,
    ),
  };
}

/** The events of a session 42 s in: idle phase done, write phase running, 5 xruns, 3 dumps. */
export function sampleEvents(): SessionEvent[] {
  return [
    {
      type: 'session-start',
      timeMs: 0,
      startedAt: '2026-11-29T20:00:00.000Z',
      logPath: null,
      params: {
        device: 'plug:jack',
        rateHz: 48000,
        periodFrames: 64,
        periods: 2,
        phasePlan: 'idle:10s,write:40s',
        durationMs: null,
        mask: 3,
        capture: 'auto',
        loadDir: '/tmp',
        outDir: null,
        maxXruns: null,
        rtPriority: 80,
        cpu: null,
        injectStall: true,
        scrub: true,
      },
      host: {
        kernelRelease: '6.1.0-28-amd64',
        kernelVersion: '#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1',
        arch: 'x86_64',
        preempt: 'voluntary',
        cpus: 2,
        threadirqs: false,
        xrunDebugAvailable: true,
      },
    },
    {
      type: 'capture-status',
      timeMs: 50,
      source: 'kmsg',
      lostMessages: 0,
      mask: 3,
      pcm: 'card0/pcm0p',
      stackDumps: true,
    },
    {
      type: 'playback-started',
      timeMs: 120,
      device: 'plug:jack',
      granted: { rateHz: 48000, periodFrames: 64, bufferFrames: 128 },
      policy: 'SCHED_FIFO 80',
      hwPcm: null,
    },
    {
      type: 'phase-start',
      timeMs: 150,
      phase: 'idle',
      kind: 'idle',
      index: 0,
      total: 2,
      durationMs: 10_000,
    },
    { type: 'xrun', timeMs: 4210, index: 0, monotonicNs: 1e12, durationMs: 1.3, phase: 'idle' },
    {
      type: 'phase-end',
      timeMs: 10_150,
      phase: 'idle',
      index: 0,
      xruns: 1,
      throughput: null,
      cut: false,
    },
    {
      type: 'phase-start',
      timeMs: 10_150,
      phase: 'write',
      kind: 'write',
      index: 1,
      total: 2,
      durationMs: 40_000,
    },
    {
      type: 'xrun',
      timeMs: 12_034,
      index: 1,
      monotonicNs: 1.01e12,
      durationMs: 2.7,
      phase: 'write',
    },
    { type: 'kernel-event', timeMs: 12_100, event: kernelEvent(12_034), matchedXrun: 1 },
    {
      type: 'xrun',
      timeMs: 19_876,
      index: 2,
      monotonicNs: 1.02e12,
      durationMs: 2.1,
      phase: 'write',
    },
    { type: 'kernel-event', timeMs: 19_900, event: kernelEvent(19_876), matchedXrun: 2 },
    {
      type: 'xrun',
      timeMs: 33_120,
      index: 3,
      monotonicNs: 1.03e12,
      durationMs: 3.4,
      phase: 'write',
    },
    {
      type: 'kernel-event',
      timeMs: 33_200,
      event: kernelEvent(33_120, 'ext4_da_write_end', 'ext4'),
      matchedXrun: 3,
    },
    {
      type: 'xrun',
      timeMs: 33_900,
      index: 4,
      monotonicNs: 1.04e12,
      durationMs: 0.9,
      phase: 'write',
    },
    {
      type: 'stats',
      timeMs: 42_000,
      elapsedMs: 42_000,
      xruns: 5,
      kernelEvents: 3,
      headroom: { p50Us: 1180, p99Us: 310, minUs: 42, count: 31_000 },
      phase: 'write',
      load: { bytes: 3_221_225_472, mbPerSec: 102.4 },
      loadPaused: false,
    },
  ];
}
