// The one kernel-capture probe of session and watch: selects the live kernel-log source
// (kmsg, journalctl, dmesg, or the kprobe), reads it into the live analyzer, flushes a dump
// once the log has been quiet, aligns the kernel clock with CLOCK_MONOTONIC, drains the last
// dumps after the run, closes the source, and keeps the raw log for the bundle's kernel.log
// (bounded: first and last 8 MiB). Each kernel event goes to `onEvents` as it completes.
import type { XrunEvent as AnalyzerEvent } from '../analysis/index.js';
import type {
  CaptureContext,
  CaptureSourceName,
  KernelCaptureSource,
} from '../kernel/source-contract.js';
import type { SelectedCapture } from '../kernel/source-select.js';
import type { SessionKernelEvent } from '../session/events.js';
import { createLiveAnalyzer, type LiveAnalyzer } from '../session/live-analyzer.js';
import { HeadTailLines } from './bounded.js';
import type { BundleFile, RunContext, RunProbe } from './probe.js';
import { errorMessage } from '../errors.js';

/** After the run stops, keep reading the kernel log this long: the last dumps are printed
 * within a few ms, but journalctl/dmesg followers add their own latency. */
const DRAIN_MS = 400;
/** A pause in the kernel log this long means the dump being printed is complete. */
const QUIET_FLUSH_MS = 300;

/** Picks and starts a source (src/kernel/source-select.ts, with the kprobe candidate). */
export type SelectCapture = (
  capture: string,
  signal: AbortSignal,
  context?: CaptureContext,
) => Promise<SelectedCapture>;

export interface KernelCaptureOptions {
  /** `--capture` as given: auto, xrun_debug, kprobe, a log source, or none. */
  capture: string;
  /** `--mask`: 0 means the kernel prints nothing, so nothing is read either. */
  mask: number;
  /** Known at the run's init (the kprobe is preferred where xrun_debug is missing). */
  context: () => CaptureContext;
  select: SelectCapture;
  /** Completed kernel events, in log order, with their time on the run's clock. */
  onEvents: (events: CapturedKernelEvent[]) => void;
}

/** One kernel event as the analyzer gave it and as the run's events carry it. */
export interface CapturedKernelEvent {
  analyzer: AnalyzerEvent;
  event: SessionKernelEvent;
}

export interface KernelCapture extends RunProbe {
  /** The backend in use ('none' before apply or when nothing could be opened). */
  readonly sourceName: CaptureSourceName;
  /** A source is open (something reads the kernel log). */
  readonly reading: boolean;
  /** The kprobe backend: XRUN stacks without xrun_debug, every PCM. */
  readonly kprobe: boolean;
  readonly lostMessages: number;
  /** CLOCK_MONOTONIC minus the kernel log clock, ns (null: no source). */
  readonly offsetNs: number | null;
  readonly clockAlignment: 'marker' | 'assumed' | 'none';
  readonly live: LiveAnalyzer;
  /** Why better sources were skipped, and why none could be opened. */
  readonly skipped: readonly string[];
  /** The raw captured log (bounded), as kernel.log holds it. */
  kernelLogText(): string;
  /** kernel.log for the bundle folder. */
  bundleFiles(): BundleFile[];
}

/** Normalises analyzer frames to bundle frames: "func" / "func [module]". */
function eventFrames(e: AnalyzerEvent): string[] {
  return e.frames.map((f) => (f.module ? `${f.function} [${f.module}]` : f.function));
}

/** An analyzer event as a run event: kernel time converted to ms since t0 when aligned. */
export function toRunKernelEvent(
  e: AnalyzerEvent,
  offsetNs: number | null,
  t0: bigint,
): SessionKernelEvent {
  const time = e.time ?? null;
  return {
    kind: e.kind,
    pcm: e.pcm,
    time,
    sessionMs:
      time !== null && offsetNs !== null ? (time * 1e9 + offsetNs - Number(t0)) / 1e6 : null,
    phase: null,
    offender: {
      class: e.offender.class,
      function: e.offender.function,
      module: e.offender.module,
      signature: e.offender.signature,
    },
    frames: eventFrames(e),
    ...(e.detection ? { detection: e.detection } : {}),
  };
}

/** Creates the capture probe (nothing is opened before apply). */
export function createKernelCapture(o: KernelCaptureOptions): KernelCapture {
  const live = createLiveAnalyzer();
  const log = new HeadTailLines();
  let selected: SelectedCapture = { source: null, name: 'none', skipped: [] };
  let source: KernelCaptureSource | null = null;
  let offsetNs: number | null = null;
  let clockAlignment: 'marker' | 'assumed' | 'none' = 'none';
  let loop: Promise<void> = Promise.resolve();
  let quietTimer: NodeJS.Timeout | null = null;
  let lastLineAt = 0;
  let t0 = 0n;
  const requested = o.capture !== 'none' && o.mask !== 0;

  const deliver = (batch: AnalyzerEvent[]): void => {
    if (batch.length === 0) return;
    o.onEvents(batch.map((a) => ({ analyzer: a, event: toRunKernelEvent(a, offsetNs, t0) })));
  };

  return {
    name: 'kernel capture',
    get sourceName() {
      return selected.name;
    },
    get reading() {
      return source !== null;
    },
    get kprobe() {
      return selected.name === 'trace_pipe';
    },
    get lostMessages() {
      return source?.lostMessages ?? 0;
    },
    get offsetNs() {
      return offsetNs;
    },
    get clockAlignment() {
      return clockAlignment;
    },
    live,
    get skipped() {
      return selected.skipped;
    },
    kernelLogText: () => log.text(),

    async apply(ctx: RunContext) {
      t0 = ctx.t0;
      if (!requested) return;
      selected = await o.select(o.capture, ctx.stop, o.context());
      source = selected.source;
      for (const s of selected.skipped) ctx.notes.warn(`kernel log: ${s}`);
      if (selected.name === 'trace_pipe')
        ctx.notes.note('capturing XRUN stacks through a kprobe on __snd_pcm_xrun (trace_pipe)');
      if (!source) {
        ctx.notes.limitations.push(
          `No kernel log could be read (${selected.skipped.join('; ') || 'no source'}): kernel XRUN dumps cannot be seen.${process.geteuid?.() === 0 ? '' : ' Run as root.'}`,
        );
        return;
      }
      const src = source;
      loop = (async () => {
        for await (const line of src) {
          log.push(line.text);
          lastLineAt = Date.now();
          deliver(live.push(line.text));
        }
      })();
      quietTimer = setInterval(() => {
        if (lastLineAt && Date.now() - lastLineAt > QUIET_FLUSH_MS) {
          lastLineAt = 0;
          deliver(live.flush());
        }
      }, QUIET_FLUSH_MS);
      const measured = src.measureClockOffset ? await src.measureClockOffset() : null;
      // kmsg/journalctl monotonic timestamps are the kernel's local clock ≈ CLOCK_MONOTONIC.
      offsetNs = measured ? measured.offsetNs : 0;
      clockAlignment = measured ? 'marker' : 'assumed';
    },

    async collect() {
      if (source) await new Promise((r) => setTimeout(r, DRAIN_MS));
    },

    async restore(ctx: RunContext) {
      if (source) await source.close().catch(() => undefined);
      await loop.catch((err: unknown) =>
        ctx.notes.warn(`kernel log capture failed: ${errorMessage(err)}`),
      );
      if (quietTimer) clearInterval(quietTimer);
      deliver(live.finish());
      if (source) {
        for (const w of source.warnings) ctx.notes.warn(`kernel log: ${w}`);
        if (source.lostMessages > 0)
          ctx.notes.warn(
            `${source.lostMessages} kernel messages lost (the kernel ring buffer wrapped before they were read): boot with a larger log_buf_len`,
          );
      }
      for (const w of live.warnings) ctx.notes.warnings.push(`analysis: ${w}`);
      if (log.droppedLines > 0)
        ctx.notes.warnings.push(
          `kernel.log: ${log.droppedLines} lines from the middle of the run were dropped to bound memory (every event was still analysed)`,
        );
    },

    bundleFiles(): BundleFile[] {
      return [{ name: 'kernel.log', text: log.text() }];
    },
  };
}
