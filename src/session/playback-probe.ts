// The session's playback as a probe of the run lifecycle: apply opens the device and starts
// the real-time writer (its xruns and stats go to the session as they happen), collect stops
// it and keeps the summary, restore makes sure it is stopped when the run failed. The device
// ending on its own (unplugged, error) stops the run.
import type { PlaybackHandle, PlaybackOptions, PlaybackSummary } from '../playback/index.js';
import type { StartedEvent, StatsEvent, XrunEvent } from '../playback/types.js';
import { errorMessage, XrunhuntError } from '../errors.js';
import type { RunContext, RunProbe } from '../run/probe.js';

export interface PlaybackProbeOptions {
  options: PlaybackOptions;
  start: (options: PlaybackOptions, ctx: { signal?: AbortSignal }) => PlaybackHandle;
  onXrun: (x: XrunEvent) => void;
  onStats: (s: StatsEvent) => void;
  /** The device ended on its own while the run went on: why (the run is then stopped). */
  onEnded: (reason: string) => void;
}

export interface PlaybackProbe extends RunProbe {
  /** What the device granted (set once apply returned). */
  readonly started: StartedEvent | null;
  /** The end summary (null until collected, or when playback failed). */
  readonly summary: PlaybackSummary | null;
}

/** Creates the probe; nothing is opened before apply. */
export function createPlaybackProbe(o: PlaybackProbeOptions): PlaybackProbe {
  let handle: PlaybackHandle | null = null;
  let started: StartedEvent | null = null;
  let summary: PlaybackSummary | null = null;
  let collected = false;
  return {
    name: 'playback',
    get started() {
      return started;
    },
    get summary() {
      return summary;
    },
    async apply(ctx: RunContext) {
      if (ctx.stop.aborted)
        throw new XrunhuntError('interrupted', 'stopped before playback started');
      const pb = o.start(o.options, {});
      handle = pb;
      pb.on('xrun', o.onXrun);
      pb.on('stats', o.onStats);
      pb.on('warning', (w) => ctx.notes.warn(w.message));
      started = await pb.started;
      pb.done.then(
        (s) => {
          if (!ctx.stop.aborted && s.endReason !== 'stopped')
            o.onEnded(`playback ended: ${s.error?.message ?? s.endReason}`);
        },
        (err: unknown) => ctx.requestStop(`playback failed: ${errorMessage(err)}`),
      );
    },
    async collect(ctx: RunContext) {
      if (!handle) return;
      collected = true;
      handle.stop();
      summary = await handle.done.catch((err: unknown) => {
        ctx.notes.warn(`playback ended with an error: ${errorMessage(err)}`);
        return null;
      });
    },
    async restore() {
      if (!handle || collected) return;
      handle.stop();
      summary = await handle.done.catch(() => null);
    },
  };
}
