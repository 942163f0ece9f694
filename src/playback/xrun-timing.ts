// When did the audio run out, and for how long? aplay and JACK users see negative or
// 4-billion-ms xrun lengths because timestamps from different clocks, unset timestamps and
// wrap-arounds are subtracted blindly. Here every input is CLOCK_MONOTONIC and guarded.

export interface XrunTimingInput {
  /** Monotonic ns when the loop detected the underrun. */
  detectNs: bigint;
  /** Monotonic ns when audio was running again (first write after recovery). */
  resumeNs: bigint;
  /** Trigger timestamp from snd_pcm_status (0n when the device does not set it). */
  triggerNs: bigint;
  /** Whether status reported state XRUN (the trigger timestamp then marks the stop). */
  statusIsXrun: boolean;
  /** Monotonic ns after the last successful write before the underrun (null: none yet). */
  lastWriteNs: bigint | null;
  /** Frames queued right after that write. */
  queuedAfterLastWrite: number;
  rate: number;
}

export interface XrunTiming {
  startNs: bigint;
  startSource: 'trigger' | 'estimate';
  durationMs: number;
}

/** Picks a trustworthy underrun start and a non-negative duration from guarded monotonic times. */
export function computeXrunTiming(x: XrunTimingInput): XrunTiming {
  const earliest = x.lastWriteNs ?? 0n;
  // The device's trigger time is only trusted when it is set, monotonic-plausible, after the
  // last write and not after we saw the underrun.
  const triggerOk =
    x.statusIsXrun && x.triggerNs > 0n && x.triggerNs >= earliest && x.triggerNs <= x.detectNs;
  let startNs: bigint;
  let startSource: 'trigger' | 'estimate';
  if (triggerOk) {
    startNs = x.triggerNs;
    startSource = 'trigger';
  } else {
    // The queued audio lasted queued/rate after the last write; the detection bounds it.
    const queuedNs =
      x.rate > 0 ? BigInt(Math.round((Math.max(0, x.queuedAfterLastWrite) * 1e9) / x.rate)) : 0n;
    const estimate = x.lastWriteNs === null ? x.detectNs : x.lastWriteNs + queuedNs;
    startNs = estimate < x.detectNs ? estimate : x.detectNs;
    startSource = 'estimate';
  }
  const end = x.resumeNs > x.detectNs ? x.resumeNs : x.detectNs;
  const diff = end > startNs ? end - startNs : 0n;
  return { startNs, startSource, durationMs: Number(diff / 1000n) / 1000 };
}
