// What the kernel can and cannot report about a stream it does not own: an XRUN dump is
// printed only when the kernel stops the stream (avail >= stop_threshold). Sound servers
// and dmix often set stop_threshold to the boundary and let the kernel fill silence, so
// their underruns are played as silence or stale audio and the kernel never reports them.
// The stream's own counters still show it: avail_max (largest avail since the last
// status read) at or past the buffer size means the buffer ran empty. Pure.
import type { StreamHwParams, StreamStatus, StreamSwParams } from './stream-proc-formats.js';

/** Whether the kernel will stop (and so report) this stream on an underrun. */
export interface KernelReporting {
  reports: boolean;
  /** Plain reason when it does not (or cannot be known); null when it does. */
  reason: string | null;
}

/** Decides from sw_params whether an underrun of this stream ever reaches xrun_debug. */
export function kernelReporting(hw: StreamHwParams, sw: StreamSwParams): KernelReporting {
  const buffer = hw.bufferFrames;
  const stop = sw.stopThreshold;
  if (buffer === undefined || stop === undefined) {
    return {
      reports: true,
      reason: 'sw_params could not be read: assuming the kernel stops the stream on underruns',
    };
  }
  if (stop > buffer) {
    const silence =
      (sw.silenceSize ?? 0) > 0 || (sw.silenceThreshold ?? 0) > 0
        ? ' and the kernel fills the buffer with silence'
        : '';
    const never = sw.boundary !== undefined && stop >= sw.boundary;
    return {
      reports: false,
      reason: `its owner set stop_threshold ${never ? 'to the boundary (never stop)' : `to ${stop} frames, above the ${buffer}-frame buffer`}${silence}: underruns are played as ${silence ? 'silence' : 'stale audio'} and the kernel ${never ? 'never reports them' : 'reports them late, if at all'}`,
    };
  }
  return { reports: true, reason: null };
}

/** One poll of a stream's status, as the underrun counter needs it. */
export type UnderrunSample = Pick<
  StreamStatus,
  'state' | 'avail' | 'availMax' | 'hwPtr' | 'applPtr'
>;

/**
 * Whether one status read shows an underrun (overrun for capture) since the previous read:
 * the stream is in XRUN, or avail reached the buffer size, or — playback — the hardware
 * pointer ran past the application's. Only RUNNING/XRUN states count (a PREPARED playback
 * stream is "empty" before it starts).
 */
export function sampleShowsUnderrun(
  s: UnderrunSample,
  bufferFrames: number,
  direction: 'playback' | 'capture',
): boolean {
  if (s.state === 'XRUN') return true;
  if (s.state !== 'RUNNING') return false;
  const fill = Math.max(s.availMax ?? -1, s.avail ?? -1);
  if (fill >= bufferFrames) return true;
  return (
    direction === 'playback' &&
    s.hwPtr !== undefined &&
    s.applPtr !== undefined &&
    s.hwPtr > s.applPtr
  );
}
