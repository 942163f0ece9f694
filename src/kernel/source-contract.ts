// The contract every live kernel-log capture implements (/dev/kmsg, journalctl, dmesg,
// the kprobe/tracefs source). A run (session, watch, stress cell) starts one, iterates its
// raw lines into the analyzer, and reads `lostMessages` at the end. Sources only read:
// anything they set up in the kernel (kprobes, buffer sizes) they put back in `close()`.
// It lives in kernel/ because the sources implement it: the layers above import it, never
// the other way round.

/** Kernel-log capture backends a run can use ('none' = userspace xruns only). */
export type CaptureSourceName = 'kmsg' | 'journalctl' | 'dmesg' | 'trace_pipe' | 'none';

/** One raw line of kernel log with the CLOCK_MONOTONIC time it was read at. */
export interface CapturedLine {
  /** The line as the source gave it (kmsg records keep their `PRI,SEQ,USEC,FLAGS;` prefix). */
  text: string;
  /** process.hrtime.bigint() when the line was read, as a number of ns. */
  readNs: number;
}

/** A live kernel-log capture. */
export interface KernelCaptureSource extends AsyncIterable<CapturedLine> {
  /** Which backend this is (goes into reports and bundles). */
  readonly name: CaptureSourceName;
  /** Records the kernel overwrote before we read them (kmsg EPIPE / sequence gaps). */
  readonly lostMessages: number;
  /** Non-fatal problems seen while capturing (printed as warnings). */
  readonly warnings: readonly string[];
  /**
   * Starts capturing from NOW (older records are skipped). Resolves once the source is
   * positioned; iteration then yields lines until `signal` aborts or `close()` is called.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Stops reading and releases everything (idempotent). Iteration ends after buffered lines. */
  close(): Promise<void>;
  /**
   * Optional: measures CLOCK_MONOTONIC minus the kernel log's own clock, in ns, e.g. by
   * writing a marker to /dev/kmsg and reading its timestamp back. Null when it cannot.
   */
  measureClockOffset?(): Promise<ClockOffset | null>;
}

/** A measured offset between CLOCK_MONOTONIC and the kernel log clock. */
export interface ClockOffset {
  /** monotonicNs - kernelNs. */
  offsetNs: number;
  /** Half the write→read-back bracket, ns: how far off the offset can be. */
  uncertaintyNs: number;
  method: 'marker' | 'assumed';
}

/** What selecting a capture source needs to know. */
export interface CaptureRequest {
  /** 'auto' picks the best available; otherwise one backend or 'none'. */
  capture: string;
  signal: AbortSignal;
}

/** A named way to build a source; returns null (with a reason) when unavailable here. */
export interface CaptureCandidate {
  name: CaptureSourceName;
  open(): Promise<KernelCaptureSource | { unavailable: string }>;
}

/** What capture selection needs from the run: auto picks the kprobe when xrun_debug is missing. */
export interface CaptureContext {
  xrunDebugAvailable: boolean;
  journalDir: string;
  toolVersion: string;
  /** The command the kprobe journal names as its owner ("session --capture auto", "watch …"). */
  command: string;
}
