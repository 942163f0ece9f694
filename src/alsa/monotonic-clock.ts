// CLOCK_MONOTONIC for the audio writer without a heap allocation per reading.
// process.hrtime.bigint() allocates a BigInt per call (and every BigInt subtraction another):
// 3 readings per period at 64 frames / 48 kHz were 2,250 BigInts a second, the garbage behind
// the writer thread's scavenges and minor faults. Here libc's clock_gettime() writes into one
// preallocated timespec and the reading is a plain Number of nanoseconds since the clock's
// origin: an exact integer for 2^53 ns (104 days) after the clock is opened.
import koffi from 'koffi';

/** A monotonic nanosecond clock whose readings are exact integer Numbers relative to an origin. */
export interface MonotonicClock {
  /** Nanoseconds since `originNs` (an integer Number; never a BigInt). */
  nowNs(): number;
  /**
   * Stores nowNs() in `into[slot]`: the hot path's reading. A Number above 2^31 returned from
   * a call that the JIT did not inline is boxed (a heap allocation); a typed-array slot is not.
   */
  readNs(into: Float64Array, slot: number): void;
  /**
   * Blocks the calling thread for `ns` nanoseconds on this clock (clock_nanosleep; a signal
   * may end it early); returns at once for ns ≤ 0. The timer writer's only way of waking up.
   * Relative, so the argument stays a small integer (no boxed Number per call): the writer
   * recomputes every sleep from the hardware pointer, so nothing drifts.
   */
  sleepNs(ns: number): void;
  /** The absolute CLOCK_MONOTONIC time (ns) that nowNs() counts from: 0 reads as originNs. */
  readonly originNs: bigint;
}

const CLOCK_MONOTONIC = 1;
const NS_PER_S = 1e9;

type ClockGettime = (clockId: number, timespec: Uint32Array) => number;
type ClockNanosleep = (clockId: number, flags: number, req: Uint32Array, rem: null) => number;
let clockGettime: ClockGettime | undefined;
let clockNanosleep: ClockNanosleep | undefined;

function loadClockNanosleep(): ClockNanosleep {
  if (clockNanosleep) return clockNanosleep;
  const libc = koffi.load('libc.so.6');
  // Returns the error number itself (EINTR), not -1/errno.
  clockNanosleep = libc.func(
    'int clock_nanosleep(int clk_id, int flags, void *req, void *rem)',
  ) as unknown as ClockNanosleep;
  return clockNanosleep;
}

function loadClockGettime(): ClockGettime {
  if (clockGettime) return clockGettime;
  const libc = koffi.load('libc.so.6');
  // `void *`: koffi passes the typed array's memory itself (no copy, no out-object to build).
  clockGettime = libc.func('int clock_gettime(int clk_id, void *tp)') as unknown as ClockGettime;
  return clockGettime;
}

/** Opens CLOCK_MONOTONIC (the clock of printk timestamps and process.hrtime) for the writer. */
export function openMonotonicClock(): MonotonicClock {
  const gettime = loadClockGettime();
  // struct timespec is { long tv_sec; long tv_nsec; } (little-endian on every target Node
  // runs on): tv_nsec is the second long. Uptime past 2^32 s is not a case, so the low word
  // of tv_sec is the whole of it.
  const ts = new Uint32Array(4);
  const nsecWord = koffi.sizeof('long') / 4;
  if (gettime(CLOCK_MONOTONIC, ts) !== 0) {
    throw new Error(`clock_gettime(CLOCK_MONOTONIC) failed: errno ${koffi.errno()}`);
  }
  const originSec = ts[0]!;
  const nanosleep = loadClockNanosleep();
  const request = new Uint32Array(4);
  return {
    originNs: BigInt(originSec) * 1_000_000_000n,
    nowNs(): number {
      gettime(CLOCK_MONOTONIC, ts);
      return (ts[0]! - originSec) * NS_PER_S + ts[nsecWord]!;
    },
    readNs(into: Float64Array, slot: number): void {
      gettime(CLOCK_MONOTONIC, ts);
      into[slot] = (ts[0]! - originSec) * NS_PER_S + ts[nsecWord]!;
    },
    sleepNs(ns: number): void {
      if (!(ns > 0)) return;
      const sec = Math.floor(ns / NS_PER_S);
      request[0] = sec;
      request[nsecWord] = ns - sec * NS_PER_S;
      // EINTR (a signal) returns early: the caller re-reads the buffer and sleeps again.
      nanosleep(CLOCK_MONOTONIC, 0, request, null);
    },
  };
}
