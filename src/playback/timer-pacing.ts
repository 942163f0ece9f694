// The pacing of the timer-driven writer (`play --wakeup timer`, PipeWire's desktop shape): the
// device raises no period wake-ups, so the writer decides itself when to look at the buffer.
// It sleeps on CLOCK_MONOTONIC until the hardware has played the buffer down to the wake-up
// fill (one period of room: the same write size and headroom as the period-interrupt mode, so
// runs of the two modes compare), then asks the kernel where the pointer is (snd_pcm_delay:
// the call in which the kernel detects an underrun of such a stream) and writes a period.
// Pure numbers only: the write loop applies them, tests check them without a device.

/** What the timer writer aims at, in frames of the granted buffer. */
export interface TimerPacing {
  rate: number;
  periodFrames: number;
  bufferFrames: number;
  /** Queued frames at which the writer should be awake again: one period of room. */
  wakeFillFrames: number;
}

/** Never sleep longer than this in one go: a stalled device is noticed and stop requests are seen. */
export const MAX_TIMER_SLEEP_NS = 100_000_000;

/** The timer writer's targets for a granted period and buffer. */
export function timerPacing(granted: {
  rate: number;
  periodFrames: number;
  bufferFrames: number;
}): TimerPacing {
  const { rate, periodFrames, bufferFrames } = granted;
  if (!(rate > 0) || !(periodFrames > 0) || !(bufferFrames >= periodFrames)) {
    throw new RangeError(
      `timer pacing needs rate > 0 and buffer ≥ period > 0, got rate ${rate}, period ${periodFrames}, buffer ${bufferFrames}`,
    );
  }
  return { rate, periodFrames, bufferFrames, wakeFillFrames: bufferFrames - periodFrames };
}

/**
 * How long to sleep (ns, whole, ≥ 0, at most MAX_TIMER_SLEEP_NS) before a period of room is
 * free, given the frames queued now (buffer − avail); 0 when there is room already.
 */
export function timerSleepNs(pacing: TimerPacing, queuedFrames: number): number {
  const excess = queuedFrames - pacing.wakeFillFrames;
  if (!(excess > 0)) return 0;
  const ns = Math.ceil((excess * 1e9) / pacing.rate);
  return ns > MAX_TIMER_SLEEP_NS ? MAX_TIMER_SLEEP_NS : ns;
}
