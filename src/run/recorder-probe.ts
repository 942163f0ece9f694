// The flight recorder as a run probe (`--recorder on|auto`): opens the recorder at apply (inside
// the settings lock, journaled), feeds every trace_pipe line into the bounded windows
// (recorder-windows.ts), undoes everything at restore, and writes the kept windows into the
// bundle as recorder.txt. The per-XRUN breakdown (src/recorder/) is computed from windows().
import { errorMessage, XrunhuntError } from '../errors.js';
import { createRecorderSource, recorderUnavailable } from '../kernel/recorder-source.js';
import type {
  RecorderCounts,
  RecorderSource,
  RecorderSourceOptions,
} from '../kernel/recorder-source.js';
import type { BundleFile, RunContext, RunProbe } from './probe.js';
import { explainRecorderWindows } from '../recorder/explain-windows.js';
import type { RecorderExplanation } from '../recorder/explain-windows.js';
import type { RecorderStatus } from '../session/report-model.js';
import type { StreamTiming } from '../recorder/breakdown-types.js';
import {
  DEFAULT_WINDOW_LIMITS,
  RecorderWindows,
  renderRecorderText,
  windowSeconds,
} from './recorder-windows.js';
import type { RecorderWindow, RecorderWindowLimits } from './recorder-windows.js';

/** `--recorder`: off (default this round), auto (on where it can run), on (required). */
export type RecorderMode = 'on' | 'off' | 'auto';
export const RECORDER_MODES: readonly RecorderMode[] = ['off', 'auto', 'on'];

export interface RecorderProbeOptions {
  mode: RecorderMode;
  journalDir: string;
  toolVersion: string;
  /** The command, for the journal (`session --recorder on`). */
  command: string;
  sysRoot?: string;
  procRoot?: string;
  /** The stream's buffer time once known (W = max(2 × buffer, 50 ms)). */
  bufferSeconds: () => number | null;
  /** CPUs to record (tracing_cpumask); all when absent. */
  cpus?: () => readonly number[] | undefined;
  limits?: RecorderWindowLimits;
  /** The source (tests pass one on a mock tracefs); the real one by default. */
  createSource?: (o: RecorderSourceOptions) => RecorderSource;
  /** Why the recorder cannot run here (null: it can); the real check by default. */
  unavailable?: () => string | null;
}

export interface RecorderProbe extends RunProbe {
  /** The kept windows, oldest first (hit line, its time and CPU, the raw lines). */
  windows(): RecorderWindow[];
  status(): RecorderStatus;
  /** The breakdown of every kept window, given the stream's timing (null when it did not run). */
  explain(timing: StreamTiming): RecorderExplanation | null;
  /** recorder.txt (none when the recorder did not run). */
  bundleFiles(): BundleFile[];
}

/** What the ring buffer itself reported lost (overrun, commit overrun, dropped events). */
function ringLost(c: RecorderCounts): number {
  const l = c.ringLoss;
  return l ? l.overrun + l.commitOverrun + l.dropped : 0;
}

/** Creates the recorder probe; with mode off it changes nothing and reports itself off. */
export function createRecorderProbe(o: RecorderProbeOptions): RecorderProbe {
  const kept = new RecorderWindows(
    () => windowSeconds(o.bufferSeconds()),
    o.limits ?? DEFAULT_WINDOW_LIMITS,
  );
  let source: RecorderSource | null = null;
  let reason =
    o.mode === 'off'
      ? '--recorder off (the default while its overhead is measured)'
      : 'not started';
  let events: string[] = [];
  let skipped: string[] = [];
  let hitsBeforeClose: number | null = null;

  return {
    name: 'flight recorder',
    windows: () => kept.windows(),
    explain: (timing) => (source === null ? null : explainRecorderWindows(kept.windows(), timing)),
    status: () => ({
      enabled: source !== null,
      reason,
      events,
      skipped,
      lines: source?.counts.lines ?? 0,
      lost: source?.counts.lostEvents ?? 0,
      hits: kept.counts.hits,
      probeHits: source?.counts.probeHits ?? null,
      ringLost: source?.counts.ringLoss ? ringLost(source.counts) : null,
      windowsKept: kept.counts.windowsKept,
      windowsTruncated: kept.counts.windowsTruncated,
      bytes: source?.counts.bytes ?? 0,
      ...(source && hitsBeforeClose !== null
        ? {
            drained: {
              lines: source.counts.drainedLines,
              hits: kept.counts.hits - hitsBeforeClose,
              emptied: source.counts.drainEmptied,
            },
            readerLag: {
              maxSeconds: source.counts.maxLagSeconds,
              atStopSeconds: source.counts.lagAtStopSeconds,
            },
          }
        : {}),
    }),

    async apply(ctx: RunContext) {
      if (o.mode === 'off') return;
      const why = (
        o.unavailable ?? (() => recorderUnavailable({ sysRoot: o.sysRoot, xrunProbe: 'required' }))
      )();
      if (why) {
        if (o.mode === 'on')
          throw new XrunhuntError('unsupported', `--recorder on: ${why}`, {
            hint: 'the flight recorder needs root, tracefs and kprobe events (CONFIG_KPROBE_EVENTS); use --recorder auto to run without it where it cannot',
          });
        reason = `--recorder auto: off because ${why}`;
        ctx.notes.note(`flight recorder off: ${why}`);
        return;
      }
      const src = (o.createSource ?? createRecorderSource)({
        journalDir: o.journalDir,
        toolVersion: o.toolVersion,
        command: o.command,
        sysRoot: o.sysRoot,
        procRoot: o.procRoot,
        cpus: o.cpus?.(),
        xrunProbe: 'required',
        onLine: (line) => kept.push(line),
      });
      try {
        const setup = await src.start();
        source = src;
        events = setup.events;
        skipped = setup.skipped;
        reason = `--recorder ${o.mode}: recording ${setup.events.length} events in tracefs instance ${setup.instance}`;
        ctx.notes.note(
          `flight recorder on: ${setup.events.length} events${setup.irqs.length ? `, stacks at IRQ ${setup.irqs.map((i) => i.irq).join(', ')}` : ''} (${setup.instance})`,
        );
      } catch (err) {
        for (const w of src.warnings) ctx.notes.warn(`flight recorder: ${w}`);
        if (o.mode === 'on') throw err;
        reason = `--recorder auto: off because ${errorMessage(err)}`;
        ctx.notes.warn(reason);
      }
    },

    async restore(ctx: RunContext) {
      if (!source) return;
      hitsBeforeClose = kept.counts.hits;
      await source.close();
      kept.finish();
      for (const w of source.warnings)
        ctx.notes.warn(w.startsWith('flight recorder') ? w : `flight recorder: ${w}`);
      const c = source.counts;
      if (c.drainEmptied === false)
        ctx.notes.warn(
          `flight recorder: the reader was ${(c.lagAtStopSeconds ?? 0).toFixed(1)} s behind at the end and could not read it all in time: the last XRUNs may have no window`,
        );
      if (c.lostEvents > 0)
        ctx.notes.warn(
          `flight recorder: the trace buffer dropped ${c.lostEvents} events (the reader fell behind): windows around those XRUNs are incomplete`,
        );
      const unexplained = (c.probeHits ?? 0) - kept.counts.hits - c.lostEvents - ringLost(c);
      if (c.probeHits !== null && unexplained > 0)
        ctx.notes.warn(
          `flight recorder: its probe fired ${c.probeHits} times but ${kept.counts.hits} hits reached trace_pipe; ${unexplained} were lost without the ring buffer reporting it (those XRUNs have no window)`,
        );
      if (kept.counts.windowsDropped > 0)
        ctx.notes.warnings.push(
          `flight recorder: ${kept.counts.windowsDropped} of ${kept.counts.hits} XRUN windows were counted but not kept (kept: the first ${(o.limits ?? DEFAULT_WINDOW_LIMITS).keepFirst} and the last ${(o.limits ?? DEFAULT_WINDOW_LIMITS).keepLast})`,
        );
    },

    bundleFiles(): BundleFile[] {
      if (!source) return [];
      return [{ name: 'recorder.txt', text: renderRecorderText(kept.windows(), kept.counts) }];
    },
  };
}
