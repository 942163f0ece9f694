// The session's run stage: the load phases one after another, each a load generator (or
// idle) until its duration, the session's --duration cap, a cut from the dashboard, or the
// stop signal; a paused load is restarted as a new segment on resume. As a probe of the
// lifecycle its restore aborts whatever load still runs.
import type { LoadGenerator, LoadKind, LoadOptions, LoadStats, Phase } from '../load/index.js';
import type { RunContext, RunProbe } from '../run/probe.js';
import type { SessionEvent, SessionThroughput } from './events.js';
import type { CollectedPhase } from './report-build.js';
import { errorMessage } from '../errors.js';

export interface LoadPhasesOptions {
  phases: readonly Phase[];
  /** The whole plan's cap (--duration), ms; null: the sum of the phases. */
  capMs: number | null;
  loadDir: string;
  createLoad: (kind: LoadKind, options: LoadOptions) => LoadGenerator;
  emit: (e: SessionEvent) => void;
  /** Userspace xruns between two run times (for phase-end). */
  xrunsBetween: (startMs: number, endMs: number) => number;
}

export interface LoadPhases extends RunProbe {
  readonly phases: readonly CollectedPhase[];
  /** The phase running now (null between phases and after the last). */
  readonly current: CollectedPhase | null;
  readonly paused: boolean;
  /** Runs every phase; resolves when the plan is done or ctx.stop aborted. */
  runPhases(ctx: RunContext): Promise<void>;
  /** The current phase's load throughput so far. */
  throughputNow(): SessionThroughput | null;
  /** Cuts the current phase short (the next one starts). */
  cut(): void;
  setPaused(paused: boolean): void;
}

/** Unique phase names: `write`, and `write#2` when a kind repeats. */
export function phaseNames(phases: readonly { kind: string }[]): string[] {
  const seen = new Map<string, number>();
  return phases.map((p) => {
    const n = (seen.get(p.kind) ?? 0) + 1;
    seen.set(p.kind, n);
    return n === 1 ? p.kind : `${p.kind}#${n}`;
  });
}

/** Adds up load segments (a paused phase has several) into one phase throughput. */
export function sumThroughput(segments: readonly LoadStats[]): SessionThroughput | null {
  if (segments.length === 0) return null;
  let bytes = 0;
  let ops = 0;
  let seconds = 0;
  let hasOps = false;
  for (const s of segments) {
    bytes += s.bytes;
    seconds += s.seconds;
    if (s.ops !== undefined) {
      ops += s.ops;
      hasOps = true;
    }
  }
  const t: SessionThroughput = { bytes, mbPerSec: seconds > 0 ? bytes / 1e6 / seconds : 0 };
  if (hasOps) {
    t.ops = ops;
    t.opsPerSec = seconds > 0 ? ops / seconds : 0;
  }
  return t;
}

/** Creates the phase runner of one session. */
export function createLoadPhases(o: LoadPhasesOptions): LoadPhases {
  const phases: CollectedPhase[] = [];
  const activeLoads = new Set<AbortController>();
  let current: CollectedPhase | null = null;
  let paused = false;
  let segments: LoadStats[] = [];
  let currentGen: LoadGenerator | null = null;
  let cutHook: (() => void) | null = null;
  let pauseHook: ((paused: boolean) => void) | null = null;

  const runPhases = async (ctx: RunContext): Promise<void> => {
    const names = phaseNames(o.phases);
    const stop = ctx.stop;
    const phaseStartAt = ctx.elapsed();
    for (let i = 0; i < o.phases.length && !stop.aborted; i++) {
      const phase = o.phases[i]!;
      const startMs = ctx.elapsed();
      const capLeft = o.capMs === null ? Infinity : o.capMs - (startMs - phaseStartAt);
      if (capLeft <= 0) break;
      const durationMs = Math.min(phase.durationMs, capLeft);
      const ph: CollectedPhase = {
        name: names[i]!,
        kind: phase.kind,
        startMs,
        endMs: Infinity,
        throughput: null,
        headroomSamplesUs: [],
      };
      current = ph;
      phases.push(ph);
      segments = [];
      paused = false;
      o.emit({
        type: 'phase-start',
        timeMs: startMs,
        phase: ph.name,
        kind: ph.kind,
        index: i,
        total: o.phases.length,
        durationMs,
      });
      ctx.notes.note(
        `phase ${i + 1}/${o.phases.length}: ${ph.name} for ${Math.round(durationMs / 1000)} s`,
      );

      const phaseCtl = new AbortController();
      const endAt = startMs + durationMs;
      let cut = false;
      cutHook = () => {
        cut = true;
        phaseCtl.abort();
      };
      const onStop = (): void => phaseCtl.abort();
      stop.addEventListener('abort', onStop, { once: true });

      let abortSegment: (() => void) | null = null;
      // Runs one load segment until the phase ends or the load is paused.
      const runSegment = async (): Promise<void> => {
        if (phase.kind === 'idle') return;
        const left = endAt - ctx.elapsed();
        if (left < 50) return;
        const segCtl = new AbortController();
        activeLoads.add(segCtl);
        const abortSeg = (): void => segCtl.abort();
        phaseCtl.signal.addEventListener('abort', abortSeg, { once: true });
        try {
          const gen = o.createLoad(phase.kind, {
            durationMs: Math.max(1, Math.round(left)),
            dir: o.loadDir,
            ...(phase.options?.sizeBytes !== undefined
              ? { sizeBytes: phase.options.sizeBytes }
              : {}),
            ...(phase.options?.workers !== undefined ? { workers: phase.options.workers } : {}),
            ...(phase.options?.dropCaches !== undefined
              ? { dropCaches: phase.options.dropCaches }
              : {}),
            ...(phase.options?.command !== undefined ? { command: phase.options.command } : {}),
          });
          currentGen = gen;
          abortSegment = abortSeg;
          const stats = await gen.start(segCtl.signal);
          segments.push(stats);
          if (stats.stopReason === 'disk-full' || stats.stopReason === 'failed') {
            ctx.notes.warn(`load ${phase.kind}: ${stats.stopDetail ?? stats.stopReason}`);
          }
        } catch (err) {
          ctx.notes.warn(
            `load ${phase.kind} could not run: ${errorMessage(err)}; the phase continued without load`,
          );
        } finally {
          currentGen = null;
          abortSegment = null;
          activeLoads.delete(segCtl);
          phaseCtl.signal.removeEventListener('abort', abortSeg);
        }
      };
      let segment: Promise<void> = runSegment();
      pauseHook = (want) => {
        if (want === paused) return;
        paused = want;
        if (want) abortSegment?.();
        else segment = segment.then(runSegment);
      };
      await sleepUntil(endAt, ctx.elapsed, phaseCtl.signal);
      phaseCtl.abort();
      pauseHook = null;
      cutHook = null;
      stop.removeEventListener('abort', onStop);
      await segment;
      ph.endMs = ctx.elapsed();
      ph.throughput = sumThroughput(segments);
      current = null;
      o.emit({
        type: 'phase-end',
        timeMs: ph.endMs,
        phase: ph.name,
        index: i,
        xruns: o.xrunsBetween(ph.startMs, ph.endMs),
        throughput: ph.throughput,
        cut: cut || stop.aborted,
      });
    }
  };

  return {
    name: 'load phases',
    phases,
    get current() {
      return current;
    },
    get paused() {
      return paused;
    },
    runPhases,
    throughputNow: () => sumThroughput(currentGen ? [...segments, currentGen.stats()] : segments),
    cut: () => cutHook?.(),
    setPaused: (p) => pauseHook?.(p),
    restore() {
      for (const c of activeLoads) c.abort();
    },
  };
}

/** Waits until `elapsed()` reaches `endMs` or the signal aborts. */
function sleepUntil(endMs: number, elapsed: () => number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, Math.max(0, endMs - elapsed()));
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
