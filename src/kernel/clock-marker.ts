// The clock-offset measurement both kernel capture sources make (kmsg, trace_pipe): write a
// marker line into the kernel's log between two CLOCK_MONOTONIC reads, wait for the reader to
// see it come back with the kernel's stamp, and take the bracket's midpoint. The kernel stamps
// the record inside the write, so the bracket must hold that write and nothing else; of a few
// tries the tightest counts (one stretched by a preemption, or by the first open of the
// marker file, would put every kernel stamp off by half of it).
import type { ClockOffset } from './source-contract.js';

/** What a source lends the measurement. */
export interface ClockMarkerIo {
  /** CLOCK_MONOTONIC, ns. */
  now(): bigint;
  /** Writes the marker line (one system call where possible); throws when it cannot. */
  write(marker: string): Promise<void> | void;
  /** Resolves with the kernel's stamp of the marker, ns, once the reader has seen it. */
  seen(marker: string): Promise<bigint>;
  /** The reader may stop looking for the marker. */
  forget(marker: string): void;
  /** How long to wait for the marker to come back, ms. */
  timeoutMs: number;
}

/** A marker write that failed: the kernel log cannot be written at all. */
export interface MarkerWriteFailure {
  failed: unknown;
}

/** Markers written per measurement. */
const CLOCK_MARKER_TRIES = 3;

// A marker text no kernel line will contain by chance.
function clockMarkerText(now: bigint): string {
  return `xrunhunt: clock marker ${Number(now).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

// One marker: null when it did not come back in time.
async function measureOnce(io: ClockMarkerIo): Promise<ClockOffset | null | MarkerWriteFailure> {
  const marker = clockMarkerText(io.now());
  const seen = io.seen(marker);
  const t0 = io.now();
  try {
    await io.write(marker);
  } catch (err) {
    io.forget(marker);
    return { failed: err };
  }
  const t1 = io.now();
  let timer: NodeJS.Timeout | undefined;
  const kernelNs = await Promise.race([
    seen,
    new Promise<null>((r) => (timer = setTimeout(() => r(null), io.timeoutMs))),
  ]);
  clearTimeout(timer);
  io.forget(marker);
  if (kernelNs === null) return null;
  return {
    offsetNs: Number((t0 + t1) / 2n - kernelNs),
    // Half the bracket plus a microsecond of record resolution.
    uncertaintyNs: Number((t1 - t0) / 2n) + 1000,
    method: 'marker',
  };
}

/** Measures CLOCK_MONOTONIC minus the kernel log clock: the tightest of a few marker brackets. */
export async function measureClockByMarker(
  io: ClockMarkerIo,
  tries = CLOCK_MARKER_TRIES,
): Promise<ClockOffset | null | MarkerWriteFailure> {
  let best: ClockOffset | null = null;
  for (let i = 0; i < tries; i++) {
    const m = await measureOnce(io);
    if (m !== null && 'failed' in m) return m;
    // A marker that did not come back (e.g. printk.devkmsg=off drops writes): none will.
    if (m === null) break;
    if (!best || m.uncertaintyNs < best.uncertaintyNs) best = m;
  }
  return best;
}
