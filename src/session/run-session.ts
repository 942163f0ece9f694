// One diagnostic session, in rtla's run_tool order: init (out folder, event log, host facts,
// pending journals, preflight) → apply (kernel capture from now, playback, xrun_debug on the
// PCM actually opened) → run (load phases, every event logged as it happens) → collect
// (stop, drain the kernel log) → restore (xrun_debug: always) → analyze → correlate →
// report → bundle. Every dependency that touches the machine comes in through SessionDeps.
import { createRunNotes } from '../run/run-notes.js';
import { join } from 'node:path';
import * as os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { XrunhuntError } from '../errors.js';
import { correlateXruns, lagWindowMs, normalizePcmId } from '../analysis/correlate.js';
import { RULES_VERSION } from '../analysis/index.js';
import type { XrunEvent as AnalyzerEvent } from '../analysis/index.js';
import type { BundleHost, CaptureBackend } from '../bundle/index.js';
import type { LoadGenerator, LoadKind, LoadOptions, LoadStats, Phase } from '../load/index.js';
import type { PlaybackOptions, PlaybackSummary, StallPlan } from '../playback/index.js';
import type { PlaybackHandle } from '../playback/index.js';
import type { AsoundDiscovery, PcmStreamInfo } from '../proc/index.js';
import {
  describeRestoreReport,
  explainXrunDebugAbsence,
  readKernelConfig,
  readKernelRelease,
  restorePendingJournals,
} from '../proc/index.js';
import type { SelectedCapture } from '../kernel/source-select.js';
import type { CaptureContext, KernelCaptureSource } from '../kernel/source-contract.js';
import type { EventLogWriter } from './event-log.js';
import type {
  SessionCheck,
  SessionControl,
  SessionEvent,
  SessionHandle,
  SessionKernelEvent,
  SessionParams,
  SessionThroughput,
} from './events.js';
import { SessionEventBus } from './events.js';
import { gatherHostFacts, type HostFacts } from './host-facts.js';
import { createLiveAnalyzer } from './live-analyzer.js';
import { createOnXrunRunner, type OnXrunRunner } from './on-xrun.js';
import {
  buildSessionReport,
  summarizeHeadroom,
  type CollectedPhase,
  type CollectedXrun,
} from './report-build.js';
import type { SessionReport } from './report-model.js';
import { renderReportText } from './report-text.js';
import {
  BUNDLE_FILES,
  openBundleEventLog,
  sessionToBundle,
  writeBundleFolder,
} from './session-bundle.js';
import {
  guardedPcms,
  restoreXrunDebugReporting,
  takeXrunDebug,
  type XrunDebugGuard,
} from '../run/xrun-debug-guard.js';

/** After playback stops, keep reading the kernel log this long: the last dumps are
 * printed within a few ms, but journalctl/dmesg followers add their own latency. */
const DRAIN_MS = 400;
/** A pause in the kernel log this long means the dump being printed is complete. */
const QUIET_FLUSH_MS = 300;

export interface SessionOptions {
  params: SessionParams;
  phases: Phase[];
  injectStall: StallPlan | null;
  onXrun: string | null;
  channels: number;
  format: string;
  roots: { procRoot: string; sysRoot: string; bootRoot: string };
  journalDir: string;
  /** Bundle folder; null writes nothing (stress cells). */
  outDir: string | null;
  toolVersion: string;
  machineId: () => string;
  env: NodeJS.ProcessEnv;
  stderr: Writable;
  stdin: Readable;
  /** Ask before restoring a killed run's settings (terminal). */
  interactive: boolean;
  /** Print progress lines to stderr (TTY). */
  progress: boolean;
}

/** Everything the session does to the machine, injectable. */
export interface SessionDeps {
  now: () => bigint;
  discover: (procRoot: string) => AsoundDiscovery;
  startPlayback: (options: PlaybackOptions, ctx: { signal?: AbortSignal }) => PlaybackHandle;
  createLoad: (kind: LoadKind, options: LoadOptions) => LoadGenerator;
  selectCapture: (
    capture: string,
    signal: AbortSignal,
    context?: CaptureContext,
  ) => Promise<SelectedCapture>;
  /** doctor's checks for this machine (optional: a failing doctor never stops a session). */
  preflight?: (roots: SessionOptions['roots']) => SessionCheck[];
}

/** The finished session. */
export interface SessionOutcome {
  exitCode: number;
  report: SessionReport;
}

const errMsg = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Unique phase names: `write`, and `write#2` when a kind repeats. */
export function phaseNames(phases: readonly { kind: string }[]): string[] {
  const seen = new Map<string, number>();
  return phases.map((p) => {
    const n = (seen.get(p.kind) ?? 0) + 1;
    seen.set(p.kind, n);
    return n === 1 ? p.kind : `${p.kind}#${n}`;
  });
}

/** Normalises analyzer frames to bundle frames: "func" / "func [module]". */
function bundleFrames(e: AnalyzerEvent): string[] {
  return e.frames.map((f) => (f.module ? `${f.function} [${f.module}]` : f.function));
}

function toSessionEvent(e: AnalyzerEvent): SessionKernelEvent {
  return {
    kind: e.kind,
    pcm: e.pcm,
    time: e.time ?? null,
    sessionMs: null,
    phase: null,
    offender: {
      class: e.offender.class,
      function: e.offender.function,
      module: e.offender.module,
      signature: e.offender.signature,
    },
    frames: bundleFrames(e),
  };
}

/** Starts a session; returns its events, controls and outcome. */
export function startSession(
  options: SessionOptions,
  signal: AbortSignal,
  deps: SessionDeps,
): SessionHandle & { outcome: Promise<SessionOutcome> } {
  const bus = new SessionEventBus();
  const stopCtl = new AbortController();
  const stopSession = (reason: string): void => {
    if (!stopCtl.signal.aborted) stopCtl.abort(new Error(reason));
  };
  if (signal.aborted) stopSession('interrupted');
  signal.addEventListener('abort', () => stopSession('interrupted'), { once: true });

  // Filled in as the session progresses; the controls act on whatever exists now.
  let phaseCut: (() => void) | null = null;
  let pauseHook: ((paused: boolean) => void) | null = null;
  let stackHook: ((on: boolean) => void) | null = null;
  const control: SessionControl = {
    stop: () => stopSession('stopped'),
    pauseLoad: () => pauseHook?.(true),
    resumeLoad: () => pauseHook?.(false),
    nextPhase: () => phaseCut?.(),
    setStackDumps: (on) => stackHook?.(on),
  };

  const outcome = runSession(options, deps, bus, stopCtl.signal, signal, {
    setPhaseCut: (f) => (phaseCut = f),
    setPauseHook: (f) => (pauseHook = f),
    setStackHook: (f) => (stackHook = f),
    requestStop: stopSession,
  });
  outcome.catch((err: unknown) => {
    // The dashboard and the event log must see the end even when the session failed.
    if (bus.isEnded) return;
    bus.emit({ type: 'warning', timeMs: 0, message: `session failed: ${errMsg(err)}` });
    bus.emit({ type: 'session-end', timeMs: 0, exitCode: 1 });
  });
  const done = outcome.then((o) => o.exitCode);
  done.catch(() => undefined);
  return { events: bus, control, done, outcome };
}

interface Hooks {
  requestStop(reason: string): void;
  setPhaseCut(f: (() => void) | null): void;
  setPauseHook(f: ((paused: boolean) => void) | null): void;
  setStackHook(f: ((on: boolean) => void) | null): void;
}

async function runSession(
  o: SessionOptions,
  deps: SessionDeps,
  bus: SessionEventBus,
  stop: AbortSignal,
  userSignal: AbortSignal,
  hooks: Hooks,
): Promise<SessionOutcome> {
  const p = o.params;
  const stopSession = hooks.requestStop;
  const t0 = deps.now();
  const elapsed = (): number => Number(deps.now() - t0) / 1e6;
  const emit = (e: SessionEvent): void => bus.emit(e);
  const { warnings, limitations, warn, note } = createRunNotes({
    emitWarning: (message) => emit({ type: 'warning', timeMs: elapsed(), message }),
    progress: o.progress,
    stderr: o.stderr,
  });

  // ---- init ---------------------------------------------------------------------------
  let log: EventLogWriter | null = null;
  if (o.outDir) {
    const l = openBundleEventLog(o.outDir);
    log = l;
    bus.on((e) => l.append(e));
  }

  const discovery = deps.discover(o.roots.procRoot);
  const facts: HostFacts = gatherHostFacts(discovery, o.roots);
  emit({
    type: 'session-start',
    timeMs: elapsed(),
    params: p,
    host: facts.summary,
    startedAt: new Date().toISOString(),
    logPath: log?.path ?? null,
  });

  // A killed earlier run may have left xrun_debug changed: put it back before anything.
  const pending = await restorePendingJournals(o.journalDir, {
    stderr: o.stderr,
    stdin: o.stdin,
    interactive: o.interactive,
  });
  for (const r of pending.restored) {
    warn(`restored settings left by a killed run (${describeRestoreReport(r.report).join('; ')})`);
  }

  // Preflight: what will and will not be visible, said plainly.
  const checks: SessionCheck[] = [];
  if (!facts.summary.xrunDebugAvailable) {
    const cfg = readKernelConfig({
      procRoot: o.roots.procRoot,
      bootRoot: o.roots.bootRoot,
      release: readKernelRelease(o.roots.procRoot),
    });
    const why = explainXrunDebugAbsence({
      procRoot: o.roots.procRoot,
      asoundPresent: discovery.present,
      cardCount: discovery.cards.length,
      streamCount: discovery.streams.length,
      kernelRelease: facts.summary.kernelRelease,
      config: cfg.config,
      configSource: cfg.source,
      configTried: cfg.tried,
    });
    checks.push({ id: 'xrun-debug', status: 'warn', message: `${why.message}; ${why.hint}` });
    limitations.push(
      `No kernel XRUN dumps: ${why.message}. This session measures userspace xruns, their timing and the load they come with, but cannot show which kernel code was running. To see it: ${why.hint}.`,
    );
  } else {
    checks.push({ id: 'xrun-debug', status: 'ok', message: 'xrun_debug is available' });
  }
  if (p.mask === 0) {
    limitations.push('--mask 0: xrun_debug was not changed, so the kernel printed no XRUN dumps.');
  }
  if (p.capture === 'none') {
    limitations.push(
      '--capture none: the kernel log was not read, so no XRUN dumps were seen; only userspace xruns were measured.',
    );
  }
  if (deps.preflight) {
    try {
      const doctor = deps.preflight(o.roots);
      // doctor explains xrun_debug itself: keep its check, not the session's short one.
      if (doctor.some((c) => c.id === 'xrun_debug')) checks.splice(0, checks.length);
      checks.push(...doctor);
    } catch (err) {
      checks.push({
        id: 'doctor',
        status: 'warn',
        message: `doctor checks failed: ${errMsg(err)}`,
      });
    }
  }
  for (const c of checks)
    if (c.status === 'fail' || c.status === 'warn') note(`preflight ${c.status}: ${c.message}`);
  emit({ type: 'preflight', timeMs: elapsed(), checks });

  // ---- apply --------------------------------------------------------------------------
  let capture: SelectedCapture = { source: null, name: 'none', skipped: [] };
  let source: KernelCaptureSource | null = null;
  let playback: PlaybackHandle | null = null;
  let guard: XrunDebugGuard | null = null;
  let onXrun: OnXrunRunner | null = null;
  const activeLoads = new Set<AbortController>();
  const kernelLines: string[] = [];
  const live = createLiveAnalyzer();
  const kernelEvents: SessionKernelEvent[] = [];
  const analyzerEvents: AnalyzerEvent[] = [];
  const xruns: CollectedXrun[] = [];
  const phases: CollectedPhase[] = [];
  let captureLoop: Promise<void> = Promise.resolve();
  let quietTimer: NodeJS.Timeout | null = null;
  let summary: PlaybackSummary | null = null;
  let offsetNs: number | null = null;
  let clockAlignment: 'marker' | 'assumed' | 'none' = 'none';
  let hwPcmName: string | null = null;
  let policy: string | null = null;
  let bufferMs = (p.periodFrames * p.periods * 1000) / p.rateHz;
  let bufferFrames = p.periodFrames * p.periods;
  let currentPhase: CollectedPhase | null = null;
  let lastLineAt = 0;
  let stopReason: string | null = null;
  let restoreDone = false;

  // A provisional match for the live view (the report's correlation decides at the end):
  // the first not yet claimed userspace xrun of our PCM within the lag window after the dump.
  const liveClaimed = new Set<number>();
  const liveMatch = (e: SessionKernelEvent): number | null => {
    if (e.sessionMs === null || e.kind !== 'xrun' || hwPcmName === null) return null;
    if (e.pcm !== null && normalizePcmId(e.pcm) !== normalizePcmId(hwPcmName)) return null;
    const win = lagWindowMs(bufferMs);
    // Xruns are in time order and the dump is recent: walk back from the newest.
    let found: number | null = null;
    for (let i = xruns.length - 1; i >= 0; i--) {
      const lag = xruns[i]!.timeMs - e.sessionMs;
      if (lag < -win.afterMs) break;
      if (lag <= win.beforeMs && !liveClaimed.has(i)) found = i;
    }
    if (found !== null) liveClaimed.add(found);
    return found;
  };

  const onKernel = (events: AnalyzerEvent[]): void => {
    for (const e of events) {
      analyzerEvents.push(e);
      const se = toSessionEvent(e);
      if (se.time !== null && offsetNs !== null) {
        se.sessionMs = (se.time * 1e9 + offsetNs - Number(t0)) / 1e6;
        se.phase =
          phases.find((ph) => se.sessionMs! >= ph.startMs && se.sessionMs! < ph.endMs)?.name ??
          (currentPhase && se.sessionMs >= currentPhase.startMs ? currentPhase.name : null);
      }
      kernelEvents.push(se);
      emit({ type: 'kernel-event', timeMs: elapsed(), event: se, matchedXrun: liveMatch(se) });
    }
  };

  const restoreXrunDebug = (): void => {
    if (restoreDone || !guard) return;
    restoreDone = true;
    restoreXrunDebugReporting(guard, { warn, note });
  };

  try {
    if (p.capture !== 'none' && p.mask !== 0) {
      capture = await deps.selectCapture(p.capture, stop, {
        xrunDebugAvailable: facts.summary.xrunDebugAvailable,
        journalDir: o.journalDir,
        toolVersion: o.toolVersion,
        command: `session --capture ${p.capture}`,
      });
      source = capture.source;
      for (const s of capture.skipped) warn(`kernel log: ${s}`);
    }
    // The kprobe backend sees every XRUN stack without xrun_debug (platform-facts §5b).
    const kprobeCapture = capture.name === 'trace_pipe';
    if (kprobeCapture) {
      const i = limitations.findIndex((l) => l.startsWith('No kernel XRUN dumps:'));
      if (i >= 0) limitations.splice(i, 1);
      note('capturing XRUN stacks through a kprobe on __snd_pcm_xrun (trace_pipe)');
    }
    if (source) {
      const src = source;
      captureLoop = (async () => {
        for await (const line of src) {
          kernelLines.push(line.text);
          lastLineAt = Date.now();
          onKernel(live.push(line.text));
        }
      })();
      quietTimer = setInterval(() => {
        if (lastLineAt && Date.now() - lastLineAt > QUIET_FLUSH_MS) {
          lastLineAt = 0;
          onKernel(live.flush());
        }
      }, QUIET_FLUSH_MS);
      const measured = src.measureClockOffset ? await src.measureClockOffset() : null;
      if (measured) {
        offsetNs = measured.offsetNs;
        clockAlignment = 'marker';
      } else {
        // kmsg/journalctl monotonic timestamps are the kernel's local clock ≈ CLOCK_MONOTONIC.
        offsetNs = 0;
        clockAlignment = 'assumed';
      }
    } else if (p.capture !== 'none' && p.mask !== 0) {
      limitations.push(
        `No kernel log could be read (${capture.skipped.join('; ') || 'no source'}): kernel XRUN dumps cannot be seen.${process.geteuid?.() === 0 ? '' : ' Run as root.'}`,
      );
    }

    if (stop.aborted) throw new XrunhuntError('interrupted', 'stopped before playback started');
    playback = deps.startPlayback(
      {
        device: p.device,
        rate: p.rateHz,
        channels: o.channels,
        format: o.format,
        periodFrames: p.periodFrames,
        periods: p.periods,
        durationMs: null,
        signal: 'sine',
        rtPriority: p.rtPriority ?? 0,
        cpu: p.cpu,
        injectStall: o.injectStall,
        statsIntervalMs: 1000,
      },
      {},
    );
    const pb = playback;
    if (o.onXrun) onXrun = createOnXrunRunner(o.onXrun, o.env);
    pb.on('xrun', (x) => {
      const monotonicNs = Number(x.monotonicNs);
      const timeMs = (monotonicNs - Number(t0)) / 1e6;
      const index = xruns.length;
      xruns.push({ timeMs, monotonicNs, durationMs: x.durationMs, injected: x.injected });
      const phase = currentPhase?.name ?? null;
      emit({ type: 'xrun', timeMs, index, monotonicNs, durationMs: x.durationMs, phase });
      onXrun?.trigger(
        { index, timeMs, monotonicNs, durationMs: x.durationMs, phase, device: p.device },
        elapsed(),
      );
      if (p.maxXruns !== null && xruns.length > p.maxXruns && !stop.aborted) {
        stopReason = `more than ${p.maxXruns} xruns (--max-xruns)`;
        stopSession(stopReason);
      }
    });
    pb.on('warning', (w) => warn(w.message));
    const started = await pb.started;
    const g = started.granted;
    bufferMs = (g.bufferFrames * 1000) / g.rate;
    bufferFrames = g.bufferFrames;
    policy = `${started.policy.policy}${started.policy.priority ? ` ${started.policy.priority}` : ''}`;
    hwPcmName = p.pcm ?? started.hwPcm?.kernelName ?? null;
    emit({
      type: 'playback-started',
      timeMs: elapsed(),
      device: started.device,
      granted: { rateHz: g.rate, periodFrames: g.periodFrames, bufferFrames: g.bufferFrames },
      policy,
      hwPcm: hwPcmName,
    });
    // The device may end on its own (unplugged, error): end the session then.
    pb.done.then(
      (s) => {
        if (!stop.aborted && s.endReason !== 'stopped') {
          stopReason = `playback ended: ${s.error?.message ?? s.endReason}`;
          stopSession(stopReason);
        }
      },
      (err: unknown) => stopSession(`playback failed: ${errMsg(err)}`),
    );

    // xrun_debug on the PCM actually opened.
    let stream: PcmStreamInfo | undefined;
    if (
      p.pcm &&
      started.hwPcm &&
      normalizePcmId(started.hwPcm.kernelName) !== normalizePcmId(p.pcm)
    ) {
      warn(
        `--pcm ${p.pcm} differs from the PCM ${p.device} opened (${started.hwPcm.kernelName}); using ${p.pcm}`,
      );
    }
    if (hwPcmName === null) {
      limitations.push(
        `${p.device} has no kernel PCM behind it (${started.pcmType} plugin, e.g. JACK or null): there is no xrun_debug to set and no kernel XRUN dump to match, so only userspace xruns and load correlation are measured. Use a hw: or plughw: device (or --pcm with the card the sound server plays to) to see kernel offenders.`,
      );
    } else {
      stream = discovery.streams.find((s) => normalizePcmId(s.pcm) === normalizePcmId(hwPcmName));
      if (p.pcm && !stream) {
        throw new XrunhuntError(
          'not-found',
          `--pcm ${p.pcm}: no such PCM stream under ${o.roots.procRoot}/asound`,
          {
            hint: 'run "xrunhunt debug status" for the streams this kernel has',
          },
        );
      }
      // Only while something reads the kernel log: unread dumps would only flood it.
      if (stream?.xrunDebugPath && p.mask !== 0 && !kprobeCapture && source) {
        const took = takeXrunDebug([stream], p.mask, {
          journalDir: o.journalDir,
          toolVersion: o.toolVersion,
          command: `session --device ${p.device}`,
        });
        if (took.ok) {
          guard = took.guard;
          note(
            `xrun_debug of ${stream.pcm} set to ${p.mask} (was ${String(guard.changes[0]?.from)})`,
          );
        } else {
          warn(`could not set xrun_debug on ${stream.pcm}: ${took.reason}`);
          limitations.push(
            `xrun_debug could not be set on ${stream.pcm}; kernel dumps may be missing.`,
          );
        }
      } else if (facts.summary.xrunDebugAvailable && !stream?.xrunDebugPath) {
        limitations.push(`${hwPcmName} has no xrun_debug file under ${o.roots.procRoot}/asound.`);
      }
    }
    hooks.setStackHook((on) => {
      if (!guard) return;
      try {
        guard.setStackDumps(on);
        emitCapture();
      } catch (err) {
        warn(`could not change xrun_debug: ${errMsg(err)}`);
      }
    });
    const emitCapture = (): void =>
      emit({
        type: 'capture-status',
        timeMs: elapsed(),
        source: capture.name,
        lostMessages: source?.lostMessages ?? 0,
        mask: guard?.mask ?? null,
        pcm: guard ? guardedPcms(guard) : null,
        stackDumps: guard ? (guard.mask & 2) !== 0 : false,
      });
    emitCapture();

    // ---- run: the load phases ----------------------------------------------------------
    const names = phaseNames(o.phases);
    const capMs = p.durationMs;
    let statsTimerPhase: CollectedPhase | null = null;
    pb.on('stats', (s) => {
      const ph = statsTimerPhase;
      if (ph && s.minHeadroomUs !== null) ph.headroomSamplesUs.push(s.minHeadroomUs);
      emit({
        type: 'stats',
        timeMs: elapsed(),
        elapsedMs: elapsed(),
        xruns: xruns.length,
        kernelEvents: kernelEvents.length,
        headroom: ph ? summarizeHeadroom(ph.headroomSamplesUs) : null,
        intervalHeadroomUs: s.minHeadroomUs,
        phase: ph?.name ?? null,
        load: currentLoadThroughput(),
        loadPaused: paused,
      });
    });
    let paused = false;
    let segments: LoadStats[] = [];
    let currentGen: LoadGenerator | null = null;
    const currentLoadThroughput = (): SessionThroughput | null => {
      const all = currentGen ? [...segments, currentGen.stats()] : segments;
      return sumThroughput(all);
    };
    const phaseStartAt = elapsed();
    for (let i = 0; i < o.phases.length && !stop.aborted; i++) {
      const phase = o.phases[i]!;
      const startMs = elapsed();
      const sessionCapLeft = capMs === null ? Infinity : capMs - (startMs - phaseStartAt);
      if (sessionCapLeft <= 0) break;
      const durationMs = Math.min(phase.durationMs, sessionCapLeft);
      const ph: CollectedPhase = {
        name: names[i]!,
        kind: phase.kind,
        startMs,
        endMs: Infinity,
        throughput: null,
        headroomSamplesUs: [],
      };
      currentPhase = ph;
      statsTimerPhase = ph;
      phases.push(ph);
      segments = [];
      paused = false;
      emit({
        type: 'phase-start',
        timeMs: startMs,
        phase: ph.name,
        kind: ph.kind,
        index: i,
        total: o.phases.length,
        durationMs,
      });
      note(`phase ${i + 1}/${o.phases.length}: ${ph.name} for ${Math.round(durationMs / 1000)} s`);

      const phaseCtl = new AbortController();
      const endAt = startMs + durationMs;
      let cut = false;
      hooks.setPhaseCut(() => {
        cut = true;
        phaseCtl.abort();
      });
      const onStop = (): void => phaseCtl.abort();
      stop.addEventListener('abort', onStop, { once: true });

      // Runs one load segment until the phase ends or the load is paused.
      const runSegment = async (): Promise<void> => {
        if (phase.kind === 'idle') return;
        const left = endAt - elapsed();
        if (left < 50) return;
        const segCtl = new AbortController();
        activeLoads.add(segCtl);
        const abortSeg = (): void => segCtl.abort();
        phaseCtl.signal.addEventListener('abort', abortSeg, { once: true });
        try {
          const gen = deps.createLoad(phase.kind, {
            durationMs: Math.max(1, Math.round(left)),
            dir: p.loadDir,
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
          pauseCtlAbort = abortSeg;
          const stats = await gen.start(segCtl.signal);
          segments.push(stats);
          if (stats.stopReason === 'disk-full' || stats.stopReason === 'failed') {
            warn(`load ${phase.kind}: ${stats.stopDetail ?? stats.stopReason}`);
          }
        } catch (err) {
          warn(
            `load ${phase.kind} could not run: ${errMsg(err)}; the phase continued without load`,
          );
        } finally {
          currentGen = null;
          pauseCtlAbort = null;
          activeLoads.delete(segCtl);
          phaseCtl.signal.removeEventListener('abort', abortSeg);
        }
      };
      let pauseCtlAbort: (() => void) | null = null;
      let segment: Promise<void> = runSegment();
      hooks.setPauseHook((want) => {
        if (want === paused) return;
        paused = want;
        if (want) pauseCtlAbort?.();
        else segment = segment.then(runSegment);
      });
      await sleepUntil(endAt, elapsed, phaseCtl.signal);
      phaseCtl.abort();
      hooks.setPauseHook(null);
      hooks.setPhaseCut(null);
      stop.removeEventListener('abort', onStop);
      await segment;
      ph.endMs = elapsed();
      ph.throughput = sumThroughput(segments);
      currentPhase = null;
      emit({
        type: 'phase-end',
        timeMs: ph.endMs,
        phase: ph.name,
        index: i,
        xruns: xruns.filter((x) => x.timeMs >= ph.startMs && x.timeMs < ph.endMs).length,
        throughput: ph.throughput,
        cut: cut || stop.aborted,
      });
    }
    statsTimerPhase = null;

    // ---- collect ---------------------------------------------------------------------------
    pb.stop();
    summary = await pb.done.catch((err: unknown) => {
      warn(`playback ended with an error: ${errMsg(err)}`);
      return null;
    });
  } finally {
    for (const c of activeLoads) c.abort();
    if (playback && !summary) {
      playback.stop();
      summary = await playback.done.catch(() => null);
    }
    if (source) {
      await new Promise((r) => setTimeout(r, DRAIN_MS));
    }
    restoreXrunDebug();
    if (source) await source.close().catch(() => undefined);
    await captureLoop.catch((err: unknown) => warn(`kernel log capture failed: ${errMsg(err)}`));
    if (quietTimer) clearInterval(quietTimer);
    hooks.setStackHook(null);
  }
  onKernel(live.finish());
  if (onXrun) {
    await Promise.race([onXrun.idle(), new Promise((r) => setTimeout(r, 2000))]);
    for (const f of onXrun.failures) warn(f);
    if (onXrun.skipped > 0)
      warn(
        `--on-xrun ran ${onXrun.ran} times; ${onXrun.skipped} xruns were rate-limited (one run per second)`,
      );
  }
  if (source) {
    for (const w of source.warnings) warn(`kernel log: ${w}`);
    if (source.lostMessages > 0) {
      warn(
        `${source.lostMessages} kernel messages lost (the kernel ring buffer wrapped before they were read): boot with a larger log_buf_len`,
      );
    }
  }
  for (const w of live.warnings) warnings.push(`analysis: ${w}`);
  if (userSignal.aborted) warn('stopped early by a signal; the report covers the time until then');
  else if (stopReason) warn(`stopped early: ${stopReason}`);

  // ---- analyze, correlate, report -------------------------------------------------------
  const durationMs = elapsed();
  const correlation = correlateXruns({
    xruns,
    events: kernelEvents,
    pcm: hwPcmName,
    offsetNs,
    sessionStartNs: Number(t0),
    bufferMs,
    phases: phases.map((ph) => ({ name: ph.name, startMs: ph.startMs, endMs: ph.endMs })),
    unnamedPcmIsOurs: capture.name === 'trace_pipe',
  });
  const offenders = live.rank().map((r) => ({
    function: r.function,
    module: r.module,
    signature: r.signature,
    count: r.count,
    share: r.share,
  }));
  const files = o.outDir
    ? {
        bundle: join(o.outDir, BUNDLE_FILES.bundle),
        events: join(o.outDir, BUNDLE_FILES.events),
        kernelLog: join(o.outDir, BUNDLE_FILES.kernelLog),
        report: join(o.outDir, BUNDLE_FILES.report),
      }
    : { bundle: null, events: null, kernelLog: null, report: null };
  const report = buildSessionReport({
    params: p,
    host: facts.summary,
    durationMs,
    phases,
    xruns,
    capture: {
      source: capture.name,
      lostMessages: source?.lostMessages ?? 0,
      // The kprobe watches every stream; ours is the one correlation matches against.
      pcm: guard ? guardedPcms(guard) : capture.name === 'trace_pipe' ? hwPcmName : null,
      mask: guard ? guard.mask : null,
    },
    events: kernelEvents,
    offenders,
    correlation,
    clockAlignment,
    offsetNs,
    policy,
    bufferMs,
    limitations,
    warnings,
    bundle: o.outDir,
    files,
  });

  if (o.outDir) {
    try {
      const captureBackend: CaptureBackend = guard
        ? 'xrun_debug'
        : capture.name === 'trace_pipe'
          ? 'kprobe'
          : 'none';
      const bundle = sessionToBundle({
        report,
        host: facts.bundle as BundleHost,
        machineId: o.machineId(),
        toolVersion: o.toolVersion,
        createdAt: new Date().toISOString(),
        frames: kernelEvents.map((e) => e.frames),
        channels: o.channels,
        format: summary?.granted?.format ?? o.format,
        bufferFrames,
        rtPolicy: summary?.policy?.policy ?? 'unknown',
        rtPriority: summary?.policy?.priority ?? null,
        captureBackend,
        playbackMs: (summary?.seconds ?? 0) * 1000,
        histograms: summary ? summary.histograms : null,
        rulesVersion: RULES_VERSION,
      });
      await writeBundleFolder({
        dir: o.outDir,
        bundle,
        kernelLog: kernelLines.join('\n') + (kernelLines.length ? '\n' : ''),
        reportText: renderReportText(report),
        scrub: p.scrub ? { hostnames: [os.hostname()], users: [safeUser()] } : null,
      });
    } catch (err) {
      warnings.push(`could not write the bundle: ${errMsg(err)}`);
      report.warnings = warnings;
      report.files.bundle = null;
    }
  }
  if (userSignal.aborted || stopReason) {
    report.conclusion.unshift(
      `Stopped early (${userSignal.aborted ? 'interrupted' : stopReason}) after ${Math.round(durationMs / 1000)} s; the report covers the time until then.`,
    );
  }
  emit({ type: 'report', timeMs: elapsed(), report });
  emit({ type: 'session-end', timeMs: elapsed(), exitCode: report.exitCode });
  log?.close();
  return { exitCode: report.exitCode, report };
}

function safeUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
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
