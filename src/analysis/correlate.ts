// Joins the userspace xruns the playback engine saw with the XRUN events the kernel
// printed, by time, for the same PCM. Pure: clocks come in as numbers.
//
// Timing model: the kernel marks the stream XRUN in the period interrupt (or in the
// application's own write) and prints the dump right then; the application notices at
// its next wake-up/write, i.e. LATER, by up to about one buffer plus scheduling delay
// (and, under emulation, the ~10 ms the dump itself holds interrupts off). So a kernel
// event normally precedes its userspace xrun: `lag = userNs - kernelNs` is >= 0 and
// small. The window allows a little negative lag for clock-offset uncertainty.

/** A userspace xrun to correlate. */
export interface CorrelateXrun {
  /** CLOCK_MONOTONIC at detection, ns. */
  monotonicNs: number;
}

/** A kernel event to correlate (as the analyzer reports it). */
export interface CorrelateKernelEvent {
  kind: string;
  pcm: string | null;
  /** printk clock, seconds (null: the log had no timestamps). */
  time: number | null;
}

/** A load phase span in ms since session start. */
export interface PhaseSpan {
  name: string;
  startMs: number;
  endMs: number;
}

export interface CorrelateInput {
  xruns: readonly CorrelateXrun[];
  events: readonly CorrelateKernelEvent[];
  /** The kernel PCM the session played to (any spelling normalizePcmId accepts), null: none. */
  pcm: string | null;
  /** CLOCK_MONOTONIC minus printk clock, ns; null = unknown (times then cannot be joined). */
  offsetNs: number | null;
  /** CLOCK_MONOTONIC at session start, ns (the zero of session ms). */
  sessionStartNs: number;
  /** Buffer duration in ms: sets the matching window. */
  bufferMs: number;
  phases?: readonly PhaseSpan[];
  /**
   * Treat events without a PCM as ours: a plain kprobe on __snd_pcm_xrun does not name the
   * stream, and during a session the stream it fires for is almost always the session's.
   */
  unnamedPcmIsOurs?: boolean;
}

/** How far a kernel event may PRECEDE the userspace xrun it explains: the app notices at
 * its next wake-up (≤ one buffer) plus scheduling delay and the dump's own interrupt-off
 * time (~10 ms under TCG); 4 buffers or 60 ms, whichever is more. */
export function lagWindowMs(bufferMs: number): { beforeMs: number; afterMs: number } {
  return {
    beforeMs: Math.max(60, 4 * bufferMs),
    // A kernel stamp later than the userspace detection only by clock-offset error.
    afterMs: 10,
  };
}

export interface CorrelationPair {
  xrun: number;
  event: number;
  /** userNs - kernelNs in ms (positive: the kernel saw it first). */
  lagMs: number;
}

export interface CorrelationResult {
  pairs: CorrelationPair[];
  /** For each xrun, the matched event index or null. */
  xrunToEvent: (number | null)[];
  /** For each event, the matched xrun index or null. */
  eventToXrun: (number | null)[];
  /** Xruns with no kernel event of our PCM: the application was late (scheduling). */
  unmatchedXruns: number[];
  /** XRUN events of our PCM that no userspace xrun explains. */
  unmatchedKernelEvents: number[];
  /** Events naming another PCM (or any PCM when the session had none). */
  otherStreamEvents: number[];
  /** Events with no PCM in the header (cannot be attributed to a stream). */
  unknownStreamEvents: number[];
  /** Each event's time in ms since session start (null: no timestamp or offset). */
  eventSessionMs: (number | null)[];
  /** Each xrun's time in ms since session start. */
  xrunSessionMs: number[];
  eventPhase: (string | null)[];
  xrunPhase: (string | null)[];
  window: { beforeMs: number; afterMs: number };
}

/**
 * Normalises the spellings of one PCM stream to `C<card>D<device><p|c>`:
 * "pcmC0D0p", "pcmC0D0p:0", "card0/pcm0p", "C0D0p". Null when not recognisable
 * (e.g. "plug:jack", or a card name that needs /proc to resolve).
 */
export function normalizePcmId(text: string | null | undefined): string | null {
  if (!text) return null;
  let m = /pcmC(\d+)D(\d+)([pc])/.exec(text) ?? /^C(\d+)D(\d+)([pc])$/.exec(text);
  if (m) return `C${m[1]}D${m[2]}${m[3]}`;
  m = /card(\d+)\/pcm(\d+)([pc])/.exec(text);
  if (m) return `C${m[1]}D${m[2]}${m[3]}`;
  return null;
}

/** The phase a session time falls into (end exclusive), null outside every phase. */
export function phaseAt(ms: number | null, phases: readonly PhaseSpan[] = []): string | null {
  if (ms === null) return null;
  for (const p of phases) if (ms >= p.startMs && ms < p.endMs) return p.name;
  const last = phases.at(-1);
  // An event stamped exactly at the end of the last phase still belongs to it.
  if (last && ms === last.endMs) return last.name;
  return null;
}

/** Matches userspace xruns to kernel XRUN events of the same PCM by time, in order. */
export function correlateXruns(input: CorrelateInput): CorrelationResult {
  const ours = normalizePcmId(input.pcm);
  const window = lagWindowMs(input.bufferMs);
  const xrunSessionMs = input.xruns.map((x) => (x.monotonicNs - input.sessionStartNs) / 1e6);
  const eventMonoNs = input.events.map((e) =>
    e.time === null || input.offsetNs === null ? null : e.time * 1e9 + input.offsetNs,
  );
  const eventSessionMs = eventMonoNs.map((ns) =>
    ns === null ? null : (ns - input.sessionStartNs) / 1e6,
  );
  const otherStreamEvents: number[] = [];
  const unknownStreamEvents: number[] = [];
  const candidates: number[] = [];
  input.events.forEach((e, i) => {
    const pcm = normalizePcmId(e.pcm) ?? (input.unnamedPcmIsOurs && e.pcm === null ? ours : null);
    if (pcm === null) unknownStreamEvents.push(i);
    else if (ours === null || pcm !== ours) otherStreamEvents.push(i);
    else if (e.kind === 'xrun') candidates.push(i);
  });

  // In time order, each xrun takes the nearest unmatched kernel event BEFORE it (the
  // kernel sees an xrun first); only if there is none, one just after it (clock error).
  const timed = candidates
    .filter((i) => eventMonoNs[i] !== null)
    .sort((a, b) => eventMonoNs[a]! - eventMonoNs[b]!);
  const order = input.xruns.map((_, i) => i).sort((a, b) => xns(a) - xns(b));
  function xns(i: number): number {
    return input.xruns[i]!.monotonicNs;
  }
  const xrunToEvent: (number | null)[] = input.xruns.map(() => null);
  const eventToXrun: (number | null)[] = input.events.map(() => null);
  const pairs: CorrelationPair[] = [];
  let lo = 0;
  for (const xi of order) {
    const x = xns(xi);
    // Events older than the window can never match a later xrun either.
    while (lo < timed.length && (x - eventMonoNs[timed[lo]!]!) / 1e6 > window.beforeMs) lo++;
    let before: number | null = null;
    let after: number | null = null;
    for (let k = lo; k < timed.length; k++) {
      const ei = timed[k]!;
      const lagMs = (x - eventMonoNs[ei]!) / 1e6;
      if (lagMs < -window.afterMs) break;
      if (eventToXrun[ei] !== null) continue;
      if (lagMs >= 0)
        before = ei; // keeps the latest preceding one
      else if (after === null) after = ei;
    }
    const ei = before ?? after;
    if (ei === null) continue;
    xrunToEvent[xi] = ei;
    eventToXrun[ei] = xi;
    pairs.push({ xrun: xi, event: ei, lagMs: (x - eventMonoNs[ei]!) / 1e6 });
  }
  pairs.sort((a, b) => a.xrun - b.xrun);
  return {
    pairs,
    xrunToEvent,
    eventToXrun,
    unmatchedXruns: xrunToEvent.flatMap((e, i) => (e === null ? [i] : [])),
    unmatchedKernelEvents: candidates.filter((i) => eventToXrun[i] === null),
    otherStreamEvents,
    unknownStreamEvents,
    eventSessionMs,
    xrunSessionMs,
    eventPhase: eventSessionMs.map((ms) => phaseAt(ms, input.phases)),
    xrunPhase: xrunSessionMs.map((ms) => phaseAt(ms, input.phases)),
    window,
  };
}
