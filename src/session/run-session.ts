// One diagnostic session, driven through the run lifecycle (src/run/lifecycle.ts): init (out
// folder, event log, host facts, preflight) → apply settings (a killed run's leftovers, the
// kernel capture from now, playback, xrun_debug on the PCM actually opened) → run (the load
// phases, every event logged as it happens) → collect (stop playback, drain the kernel log)
// → restore (always, in one finally) → analyze (correlate, report, bundle). Every dependency
// that touches the machine comes in through SessionDeps.
import { errorMessage, XrunhuntError } from '../errors.js';
import { correlateXruns, lagWindowMs, normalizePcmId } from '../analysis/correlate.js';
import type { BundleHost } from '../bundle/index.js';
import type { LoadGenerator, LoadKind, LoadOptions, Phase } from '../load/index.js';
import type { PlaybackOptions, StallPlan } from '../playback/index.js';
import type { PlaybackHandle } from '../playback/index.js';
import type { PcmStreamInfo } from '../proc/index.js';
import type { RunDeps, RunOptions } from '../run/run-options.js';
import {
  MAX_HEADROOM_SAMPLES_PER_PHASE,
  MAX_KEPT_KERNEL_EVENTS,
  MAX_KEPT_XRUNS,
  KeptList,
  pushCapped,
} from '../run/bounded.js';
import { openRunBundle, runBundleBasics } from '../run/bundle-writer.js';
import { kernelStreamMismatch, readKernelStreamShapes } from './kernel-stream-check.js';
import type { CapturedKernelEvent } from '../run/kernel-capture.js';
import { createKernelProbes } from '../run/kernel-probes.js';
import { createRecorderProbe, type RecorderMode } from '../run/recorder-probe.js';
import { breakdownConclusion } from '../recorder/breakdown-text.js';
import { runLifecycle } from '../run/lifecycle.js';
import type { RunProbe } from '../run/probe.js';
import {
  createRunContext,
  createRunStopper,
  explainNoXrunDebug,
  settleRun,
} from '../run/run-start.js';
import type {
  SessionCheck,
  SessionControl,
  SessionEvent,
  SessionHandle,
  SessionKernelEvent,
  SessionParams,
} from './events.js';
import { SessionEventBus } from './events.js';
import { gatherHostFacts } from './host-facts.js';
import type { PeriodChoice } from './period-choice.js';
import { createLoadPhases } from './load-phases.js';
import { createOnXrunRunner, type OnXrunRunner } from './on-xrun.js';
import { createPlaybackProbe } from './playback-probe.js';
import { buildSessionReport, summarizeHeadroom, type CollectedXrun } from './report-build.js';
import type { SessionReport } from './report-model.js';
import { renderReportText } from './report-text.js';
import { sessionToBundle } from './session-bundle.js';

export { phaseNames, sumThroughput } from './load-phases.js';

export interface SessionOptions extends RunOptions {
  params: SessionParams;
  phases: Phase[];
  injectStall: StallPlan | null;
  onXrun: string | null;
  channels: number;
  format: string;
  env: NodeJS.ProcessEnv;
  /** How `--period auto` chose params.periodFrames (null: given on the command line). */
  periodChoice?: PeriodChoice | null;
  /** Probes of another driver applied with the session's (`try`'s knobs), before the load phases. */
  extraProbes?: readonly RunProbe[];
  /** `--recorder`: the flight recorder (absent: off, and no `recorder` object in the report). */
  recorder?: RecorderMode;
}

/** Everything the session does to the machine, injectable. */
export interface SessionDeps extends RunDeps {
  startPlayback: (options: PlaybackOptions, ctx: { signal?: AbortSignal }) => PlaybackHandle;
  createLoad: (kind: LoadKind, options: LoadOptions) => LoadGenerator;
  /** doctor's checks for this machine (optional: a failing doctor never stops a session). */
  preflight?: (roots: SessionOptions['roots']) => SessionCheck[];
}

/** The finished session. */
export interface SessionOutcome {
  exitCode: number;
  report: SessionReport;
}

/** What the dashboard's controls act on, filled in as the session gets there. */
interface ControlTargets {
  cut(): void;
  setPaused(paused: boolean): void;
  setStackDumps(on: boolean): void;
}

/** Starts a session; returns its events, controls and outcome. */
export function startSession(
  options: SessionOptions,
  signal: AbortSignal,
  deps: SessionDeps,
): SessionHandle & { outcome: Promise<SessionOutcome> } {
  const bus = new SessionEventBus();
  const stopper = createRunStopper(signal, 'interrupted');
  let targets: ControlTargets | null = null;
  const control: SessionControl = {
    stop: () => stopper.request('stopped'),
    pauseLoad: () => targets?.setPaused(true),
    resumeLoad: () => targets?.setPaused(false),
    nextPhase: () => targets?.cut(),
    setStackDumps: (on) => targets?.setStackDumps(on),
  };
  const outcome = runSession(options, deps, bus, stopper, signal, (t) => (targets = t));
  return { events: bus, control, done: settleRun(outcome, 'session', bus), outcome };
}

async function runSession(
  o: SessionOptions,
  deps: SessionDeps,
  bus: SessionEventBus,
  stopper: ReturnType<typeof createRunStopper>,
  userSignal: AbortSignal,
  setTargets: (t: ControlTargets) => void,
): Promise<SessionOutcome> {
  const p = o.params;
  const emit = (e: SessionEvent): void => bus.emit(e);
  const { ctx, notes, t0, elapsed } = createRunContext(deps.now, stopper, emit, o);
  const { warnings, limitations, warn, note } = notes;

  const out = openRunBundle(o.outDir, o.roots);
  bus.on((e) => out.append(e));
  const discovery = deps.discover(o.roots.procRoot);
  const facts = gatherHostFacts(discovery, o.roots);

  const xruns = new KeptList<CollectedXrun>(MAX_KEPT_XRUNS);
  const kernelEvents = new KeptList<SessionKernelEvent>(MAX_KEPT_KERNEL_EVENTS);
  let hwPcmName: string | null = null;
  let stream: PcmStreamInfo | undefined;
  let bufferMs = (p.periodFrames * p.periods * 1000) / p.rateHz;
  let bufferFrames = p.periodFrames * p.periods;
  let periodMs = (p.periodFrames * 1000) / p.rateHz;
  let policy: string | null = null;
  let earlyStop: string | null = null;
  let onXrun: OnXrunRunner | null = null;

  // A provisional match for the live view (the report's correlation decides at the end):
  // the first not yet claimed userspace xrun of our PCM within the lag window after the dump.
  const liveClaimed = new Set<number>();
  const liveMatch = (e: SessionKernelEvent): number | null => {
    if (e.sessionMs === null || e.kind !== 'xrun' || hwPcmName === null) return null;
    if (e.pcm !== null && normalizePcmId(e.pcm) !== normalizePcmId(hwPcmName)) return null;
    const win = lagWindowMs(bufferMs);
    const list = xruns.items;
    // Xruns are in time order and the dump is recent: walk back from the newest.
    let found: number | null = null;
    for (let i = list.length - 1; i >= 0; i--) {
      const lag = list[i]!.timeMs - e.sessionMs;
      if (lag < -win.afterMs) break;
      if (lag <= win.beforeMs && !liveClaimed.has(i)) found = i;
    }
    if (found !== null) liveClaimed.add(found);
    return found;
  };

  const phases = createLoadPhases({
    phases: o.phases,
    capMs: p.durationMs,
    loadDir: p.loadDir,
    createLoad: deps.createLoad,
    emit,
    xrunsBetween: (a, b) => xruns.items.filter((x) => x.timeMs >= a && x.timeMs < b).length,
  });

  // --until-xruns counts the kernel's XRUN reports of the stream this session plays (a dump
  // without a PCM name counts too: older kernels print none), not other cards' streams. Counted
  // by PCM, since a report can arrive before playback said which PCM is ours.
  const kernelXrunsByPcm = new Map<string | null, number>();
  const checkUntilXruns = (): void => {
    if (p.untilXruns == null || hwPcmName === null || ctx.stop.aborted) return;
    const ours =
      (kernelXrunsByPcm.get(normalizePcmId(hwPcmName)) ?? 0) + (kernelXrunsByPcm.get(null) ?? 0);
    if (ours < p.untilXruns) return;
    earlyStop = `${p.untilXruns} kernel XRUN(s) of ${hwPcmName} captured (--until-xruns)`;
    stopper.request(earlyStop);
  };

  const onKernel = (batch: CapturedKernelEvent[]): void => {
    for (const { event: se } of batch) {
      if (se.sessionMs !== null) {
        const ms = se.sessionMs;
        const cur = phases.current;
        se.phase =
          phases.phases.find((ph) => ms >= ph.startMs && ms < ph.endMs)?.name ??
          (cur && ms >= cur.startMs ? cur.name : null);
      }
      kernelEvents.push(se);
      emit({ type: 'kernel-event', timeMs: elapsed(), event: se, matchedXrun: liveMatch(se) });
      if (se.kind === 'xrun') {
        const key = se.pcm === null ? null : normalizePcmId(se.pcm);
        kernelXrunsByPcm.set(key, (kernelXrunsByPcm.get(key) ?? 0) + 1);
        checkUntilXruns();
      }
    }
  };

  const kernel = createKernelProbes({
    command: 'session',
    capture: p.capture,
    mask: p.mask,
    xrunDebugAvailable: facts.summary.xrunDebugAvailable,
    journalDir: o.journalDir,
    toolVersion: o.toolVersion,
    select: deps.selectCapture,
    onEvents: onKernel,
    streams: () => (stream ? [stream] : []),
    guardArgs: () => `--device ${p.device}`,
    emit,
    elapsed,
    warn,
  });
  const { capture, xrunDebug } = kernel;

  const playback = createPlaybackProbe({
    start: deps.startPlayback,
    options: {
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
      wakeup: p.wakeup ?? 'period',
    },
    onXrun: (x) => {
      const monotonicNs = Number(x.monotonicNs);
      const timeMs = (monotonicNs - Number(t0)) / 1e6;
      const index = xruns.total;
      xruns.push({ timeMs, monotonicNs, durationMs: x.durationMs, injected: x.injected });
      const phase = phases.current?.name ?? null;
      emit({ type: 'xrun', timeMs, index, monotonicNs, durationMs: x.durationMs, phase });
      onXrun?.trigger(
        { index, timeMs, monotonicNs, durationMs: x.durationMs, phase, device: p.device },
        elapsed(),
      );
      if (p.maxXruns !== null && xruns.total > p.maxXruns && !ctx.stop.aborted) {
        earlyStop = `more than ${p.maxXruns} xruns (--max-xruns)`;
        stopper.request(earlyStop);
      }
    },
    onStats: (s) => {
      const ph = phases.current;
      if (ph && s.minHeadroomUs !== null)
        pushCapped(ph.headroomSamplesUs, s.minHeadroomUs, MAX_HEADROOM_SAMPLES_PER_PHASE);
      emit({
        type: 'stats',
        timeMs: elapsed(),
        elapsedMs: elapsed(),
        xruns: xruns.total,
        kernelEvents: kernelEvents.total,
        headroom: ph ? summarizeHeadroom(ph.headroomSamplesUs) : null,
        intervalHeadroomUs: s.minHeadroomUs,
        phase: ph?.name ?? null,
        load: phases.throughputNow(),
        loadPaused: phases.paused,
      });
    },
    onEnded: (reason) => {
      earlyStop = reason;
      stopper.request(reason);
    },
  });

  setTargets({
    cut: () => phases.cut(),
    setPaused: (paused) => phases.setPaused(paused),
    setStackDumps: kernel.setStackDumps,
  });

  // After playback opened: which kernel PCM is ours, and what that means for xrun_debug.
  const choosePcm = (): void => {
    const started = playback.started!;
    const g = started.granted;
    bufferMs = (g.bufferFrames * 1000) / g.rate;
    bufferFrames = g.bufferFrames;
    periodMs = (g.periodFrames * 1000) / g.rate;
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
    if (o.onXrun) onXrun = createOnXrunRunner(o.onXrun, o.env);
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
      return;
    }
    const ours = hwPcmName;
    stream = discovery.streams.find((s) => normalizePcmId(s.pcm) === normalizePcmId(ours));
    // With --pcm the kernel stream is another client's (a sound server's): nothing to compare.
    if (stream && !p.pcm) {
      const g2 = { periodFrames: g.periodFrames, bufferFrames: g.bufferFrames, rateHz: g.rate };
      const other = kernelStreamMismatch(p.device, ours, g2, readKernelStreamShapes(stream.dir));
      if (other !== null) warn(other);
    }
    if (p.pcm && !stream) {
      throw new XrunhuntError(
        'not-found',
        `--pcm ${p.pcm}: no such PCM stream under ${o.roots.procRoot}/asound`,
        { hint: 'run "xrunhunt debug status" for the streams this kernel has' },
      );
    }
    if (facts.summary.xrunDebugAvailable && !stream?.xrunDebugPath && !capture.kprobe) {
      limitations.push(`${hwPcmName} has no xrun_debug file under ${o.roots.procRoot}/asound.`);
    }
  };

  // Before playback, so it sees the stream's first XRUN and outlives its last (W is asked at each
  // hit, from the buffer time), beside whichever capture backend runs.
  const recorder = o.recorder
    ? createRecorderProbe({
        mode: o.recorder,
        journalDir: o.journalDir,
        toolVersion: o.toolVersion,
        command: `session --recorder ${o.recorder}`,
        sysRoot: o.roots.sysRoot,
        procRoot: o.roots.procRoot,
        bufferSeconds: () => (bufferMs > 0 ? bufferMs / 1000 : null),
      })
    : null;
  const probes = [
    capture,
    ...(recorder ? [recorder] : []),
    playback,
    xrunDebug,
    ...(o.extraProbes ?? []),
    phases,
  ];
  return runLifecycle(ctx, { ...o, command: 'session' }, probes, {
    init: () => {
      emit({
        type: 'session-start',
        timeMs: elapsed(),
        params: p,
        host: facts.summary,
        startedAt: new Date().toISOString(),
        logPath: out.logPath,
      });
      emit({ type: 'preflight', timeMs: elapsed(), checks: preflight() });
    },
    afterApply: (probe) => {
      if (probe === capture && capture.kprobe) {
        // The kprobe backend sees every XRUN stack without xrun_debug (platform-facts §5b).
        const i = limitations.findIndex((l) => l.startsWith('No kernel XRUN dumps:'));
        if (i >= 0) limitations.splice(i, 1);
      }
      if (probe === playback) {
        choosePcm();
        checkUntilXruns();
      }
      if (probe === xrunDebug) kernel.emitStatus();
    },
    run: () => phases.runPhases(ctx),
    analyze: async () => {
      const report = await analyze();
      return { exitCode: report.exitCode, report };
    },
  });

  /** Preflight: what will and will not be visible, said plainly. */
  function preflight(): SessionCheck[] {
    const checks: SessionCheck[] = [];
    if (!facts.summary.xrunDebugAvailable) {
      const why = explainNoXrunDebug(o.roots, discovery, facts.summary.kernelRelease);
      checks.push({ id: 'xrun-debug', status: 'warn', message: `${why.message}; ${why.hint}` });
      limitations.push(
        `No kernel XRUN dumps: ${why.message}. This session measures userspace xruns, their timing and the load they come with, but cannot show which kernel code was running. To see it: ${why.hint}.`,
      );
    } else {
      checks.push({ id: 'xrun-debug', status: 'ok', message: 'xrun_debug is available' });
    }
    if (p.mask === 0) {
      limitations.push(
        '--mask 0: xrun_debug was not changed, so the kernel printed no XRUN dumps.',
      );
    }
    if (p.capture === 'none') {
      limitations.push(
        '--capture none: xrunhunt did not read the kernel log, so this report has no XRUN dumps; only userspace xruns were measured. xrun_debug was still set: the dumps are in the kernel log ("journalctl -k | xrunhunt analyze -").',
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
          message: `doctor checks failed: ${errorMessage(err)}`,
        });
      }
    }
    for (const c of checks)
      if (c.status === 'fail' || c.status === 'warn') note(`preflight ${c.status}: ${c.message}`);
    return checks;
  }

  /** Correlate, rank, report, bundle: the machine is already back. */
  async function analyze(): Promise<SessionReport> {
    if (onXrun) {
      const runner = onXrun;
      await Promise.race([runner.idle(), new Promise((r) => setTimeout(r, 2000))]);
      for (const f of runner.failures) warn(f);
      if (runner.skipped > 0)
        warn(
          `--on-xrun ran ${runner.ran} times; ${runner.skipped} xruns were rate-limited (one run per second)`,
        );
    }
    if (userSignal.aborted)
      warn('stopped early by a signal; the report covers the time until then');
    else if (earlyStop) warn(`stopped early: ${earlyStop}`);
    if (xruns.dropped > 0 || kernelEvents.dropped > 0)
      warnings.push(
        `long run: ${xruns.dropped} userspace xruns and ${kernelEvents.dropped} kernel events beyond the first ${MAX_KEPT_XRUNS} / ${MAX_KEPT_KERNEL_EVENTS} were counted (and ranked) but not kept in detail`,
      );

    const durationMs = elapsed();
    const correlation = correlateXruns({
      xruns: xruns.items,
      events: kernelEvents.items,
      pcm: hwPcmName,
      offsetNs: capture.offsetNs,
      sessionStartNs: Number(t0),
      bufferMs,
      phases: phases.phases.map((ph) => ({ name: ph.name, startMs: ph.startMs, endMs: ph.endMs })),
      unnamedPcmIsOurs: capture.kprobe,
    });
    const offenders = capture.live.rank().map((r) => ({
      function: r.function,
      module: r.module,
      signature: r.signature,
      count: r.count,
      share: r.share,
    }));
    const guardStatus = xrunDebug.status();
    const report = buildSessionReport({
      params: p,
      host: facts.summary,
      durationMs,
      phases: [...phases.phases],
      xruns: xruns.items,
      capture: {
        source: capture.sourceName,
        lostMessages: capture.lostMessages,
        // The kprobe watches every stream; ours is the one correlation matches against.
        pcm: guardStatus.pcm ?? (capture.kprobe ? hwPcmName : null),
        mask: guardStatus.mask,
      },
      events: kernelEvents.items,
      offenders,
      correlation,
      clockAlignment: capture.clockAlignment,
      offsetNs: capture.offsetNs,
      policy,
      bufferMs,
      limitations,
      warnings,
      bundle: o.outDir,
      files: out.files,
      periodChoice: o.periodChoice ?? null,
    });
    if (recorder) {
      report.recorder = recorder.status();
      const explained = recorder.explain({
        periodSeconds: periodMs / 1000,
        bufferSeconds: bufferMs / 1000,
        writerPids: playback.summary?.policy?.tid ? [playback.summary.policy.tid] : undefined,
      });
      if (explained) {
        report.recorder.breakdown = explained;
        const said = breakdownConclusion(explained.summary);
        if (said) report.conclusion.push(said);
      }
    }

    const summary = playback.summary;
    await out.writeFor(report, warnings, () => ({
      bundle: sessionToBundle({
        report,
        ...runBundleBasics({
          host: facts.bundle as BundleHost,
          machineId: o.machineId,
          toolVersion: o.toolVersion,
          events: kernelEvents.items,
          captureBackend: kernel.backend(),
        }),
        channels: o.channels,
        format: summary?.granted?.format ?? o.format,
        bufferFrames,
        rtPolicy: summary?.policy?.policy ?? 'unknown',
        rtPriority: summary?.policy?.priority ?? null,
        playbackMs: (summary?.seconds ?? 0) * 1000,
        histograms: summary ? summary.histograms : null,
        kernelOffsetNs: capture.offsetNs,
      }),
      reportText: renderReportText(report),
      probeFiles: [...capture.bundleFiles(), ...(recorder?.bundleFiles() ?? [])],
      scrub: p.scrub,
    }));
    if (userSignal.aborted || earlyStop) {
      report.conclusion.unshift(
        `Stopped early (${userSignal.aborted ? 'interrupted' : earlyStop}) after ${Math.round(durationMs / 1000)} s; the report covers the time until then.`,
      );
    }
    emit({ type: 'report', timeMs: elapsed(), report });
    emit({ type: 'session-end', timeMs: elapsed(), exitCode: report.exitCode });
    for (const w of await out.close(p.scrub)) o.stderr.write(`xrunhunt: warning: ${w}\n`);
    return report;
  }
}
