// Watched streams, kernel events and xruns for the watch cores' tests: plain values shaped
// like what discovery and the analyzer produce (numbers as on a laptop with PipeWire).
import type { SessionKernelEvent } from '../session/events.js';
import { kernelReporting } from './hidden-xruns.js';
import type { WatchedStream } from './running-streams.js';
import { streamLabel } from './running-streams.js';
import type { WatchXrun } from './watch-ranking.js';

/** A watched stream as discovery would build it (values as on a laptop with PipeWire). */
// A running stream of `owner` with these period/buffer sizes at 48 kHz.
export function stream(
  pcm: string,
  owner: string,
  pid: number,
  period = 1024,
  buffer = 2048,
): WatchedStream {
  const hw = {
    access: 'MMAP_INTERLEAVED',
    format: 'S32_LE',
    channels: 2,
    rateHz: 48000,
    periodFrames: period,
    bufferFrames: buffer,
  };
  const sw = {
    startThreshold: 1,
    stopThreshold: buffer,
    silenceThreshold: 0,
    silenceSize: 0,
    boundary: 2 ** 62,
  };
  return {
    pcm,
    substream: 0,
    card: Number(/C(\d+)/.exec(pcm)![1]),
    device: 0,
    direction: pcm.endsWith('p') ? 'playback' : 'capture',
    cardId: 'PCH',
    cardName: 'HDA Intel PCH',
    driver: 'HDA-Intel',
    pcmName: 'ALC892 Analog',
    ownerPid: pid,
    owner,
    status: {
      state: 'RUNNING',
      ownerPid: pid,
      hwPtr: 0,
      applPtr: 0,
      avail: 0,
      availMax: 0,
      delay: 0,
    },
    hw,
    sw,
    bufferMs: (buffer * 1000) / 48000,
    kernel: kernelReporting(hw, sw),
    statusPath: `/proc/asound/card0/${pcm}/sub0/status`,
    xrunDebugPath: null,
  };
}

// An XRUN event as the analyzer classifies it.
export function kernelEvent(
  pcm: string | null,
  cls: 'kernel' | 'idle' | 'user' | 'none',
  fn: string | null,
  module: string | null = null,
): SessionKernelEvent {
  return {
    kind: 'xrun',
    pcm,
    time: 100,
    sessionMs: 1000,
    phase: 'watch',
    offender: {
      class: cls,
      function: fn,
      module,
      signature: fn ? `${fn}${module ? ` [${module}]` : ''}` : null,
    },
    frames: fn ? [fn] : [],
  };
}

// The watch's record of one kernel event, attributed to `s`.
export function xrun(i: number, s: WatchedStream | null, e: SessionKernelEvent): WatchXrun {
  return {
    index: i,
    timeMs: 1000 + i * 10,
    pcm: e.pcm,
    stream: s ? streamLabel(s) : null,
    owner: s?.owner ?? null,
    event: e,
    load: null,
  };
}
