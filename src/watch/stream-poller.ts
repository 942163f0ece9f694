// Reads the watched streams' status files during a watch: a stream that closed or changed
// owner is reported once, and an underrun the kernel did not report (silence filling,
// stop_threshold above the buffer) is counted from the stream's own counters. The first
// read of each stream only clears avail_max accumulated before we looked. Streams whose status
// must not be read (status-poll-policy.ts) are followed through hw_params: open or closed.
import type { ReadText, WatchedStream } from './running-streams.js';
import { streamLabel } from './running-streams.js';
import { sampleShowsUnderrun } from './hidden-xruns.js';
import { parseStreamStatus, type StreamStatus } from './stream-proc-formats.js';
import { dirname, join } from 'node:path';

export interface PollEvents {
  stopped(label: string, state: string, ownerPid: number | undefined): void;
  underrun(label: string, st: StreamStatus): void;
  /** Every watched stream closed. */
  nothingLeft(): void;
}

export interface StreamPoller {
  poll(): void;
  /** Underruns seen per stream label. */
  readonly polled: Map<string, number>;
  /** Labels of the streams that stopped, in order. */
  readonly stopped: readonly string[];
}

/** Creates the poller of `streams`; `readStatus` says per stream whether status may be read. */
export function createStreamPoller(
  streams: readonly WatchedStream[],
  read: ReadText,
  on: PollEvents,
  readStatus: (s: WatchedStream) => boolean = () => true,
): StreamPoller {
  const polled = new Map<string, number>();
  const stopped: string[] = [];
  const firstPoll = new Set<string>();
  return {
    polled,
    stopped,
    poll() {
      let alive = 0;
      for (const s of streams) {
        const label = streamLabel(s);
        if (stopped.includes(label)) continue;
        if (!readStatus(s)) {
          const hw = read(join(dirname(s.statusPath), 'hw_params'));
          if (hw === undefined || hw.trim() === 'closed') {
            stopped.push(label);
            on.stopped(label, 'closed', undefined);
          } else alive++;
          continue;
        }
        const st = parseStreamStatus(read(s.statusPath) ?? '');
        if (
          st.state === 'closed' ||
          (st.ownerPid !== undefined && s.ownerPid !== null && st.ownerPid !== s.ownerPid)
        ) {
          stopped.push(label);
          on.stopped(label, st.state, st.ownerPid);
          continue;
        }
        alive++;
        if (!firstPoll.has(label)) {
          firstPoll.add(label);
          continue;
        }
        if (
          s.hw.bufferFrames !== undefined &&
          sampleShowsUnderrun(st, s.hw.bufferFrames, s.direction)
        ) {
          polled.set(label, (polled.get(label) ?? 0) + 1);
          on.underrun(label, st);
        }
      }
      if (alive === 0) on.nothingLeft();
    },
  };
}
