// `xrunhunt watch`: a passive session. It plays nothing and loads nothing; it finds the
// streams already playing, turns on xrun_debug for their PCMs (journaled, restored on every
// exit path) or uses the kprobe backend where xrun_debug is missing, follows the kernel log,
// attributes each XRUN to a stream and its owner with the machine's load at that moment,
// polls the streams' own counters for underruns the kernel does not report, and ends with
// the same report and bundle as a session (kind 'watch'). Every machine access comes in
// through WatchDeps; the loop itself is the run lifecycle (src/run/lifecycle.ts).
import { XrunhuntError } from '../errors.js';
import type { BundleHost } from '../bundle/index.js';
import type { AsoundDiscovery, PcmStreamInfo } from '../proc/index.js';
import { MAX_KEPT_KERNEL_EVENTS, KeptList } from '../run/bounded.js';
import { openRunBundle, runBundleBasics } from '../run/bundle-writer.js';
import type { RunDeps, RunOptions } from '../run/run-options.js';
import { EventBus } from '../run/event-bus.js';
import { createIntervalProbe } from '../run/interval-probe.js';
import type { CapturedKernelEvent } from '../run/kernel-capture.js';
import { createKernelProbes } from '../run/kernel-probes.js';
import { createRecorderProbe, type RecorderMode } from '../run/recorder-probe.js';
import { breakdownConclusion } from '../recorder/breakdown-text.js';
import { runLifecycle } from '../run/lifecycle.js';
import {
  createRunContext,
  createRunStopper,
  explainNoXrunDebug,
  settleRun,
} from '../run/run-start.js';
import type {
  SessionControl,
  SessionEvent,
  SessionKernelEvent,
  SessionParams,
} from '../session/events.js';
import { SessionEventBus } from '../session/events.js';
import { gatherHostFacts } from '../session/host-facts.js';
import { sessionToBundle } from '../session/session-bundle.js';
import type { SessionReport } from '../session/report-model.js';
import type { LoadSampler } from './load-sampler.js';
import type { ReadText, StreamScan, WatchedStream } from './running-streams.js';
import {
  chooseStreams,
  findSoundServers,
  scanStreams,
  streamLabel,
  type RunningServer,
} from './running-streams.js';
import { createJackProbe, type JackWatchEvent } from './jack-probe.js';
import { jackConclusion } from '../jack/jack-view.js';
import { createStreamPoller } from './stream-poller.js';
import { kernelXrunsCaptured, statusPollDecision } from './status-poll-policy.js';
import {
  attributeStream,
  rankWatch,
  renderRankingText,
  renderXrunLine,
  type WatchRanking,
  type WatchXrun,
} from './watch-ranking.js';
import {
  buildWatchReport,
  renderWatchText,
  WATCH_PHASE,
  type WatchSummary,
} from './watch-report.js';

/** Stream status poll: often enough to catch most hidden underruns of a 5–20 ms buffer
 * run (each read covers every underrun since the last read, counted once), rare enough
 * to cost nothing (a few µs per read). */
export const DEFAULT_POLL_MS = 250;
/** Load baseline and dashboard stats once a second. */
const TICK_MS = 1000;
/** The human ranking block every 10 s (and at the end). */
export const DEFAULT_RANK_EVERY_MS = 10_000;

/** Events only a watch emits (the NDJSON stream carries them with the session events). */
export type WatchOnlyEvent =
  | { type: 'watch-start'; timeMs: number; streams: WatchStreamInfo[] }
  | { type: 'watch-xrun'; timeMs: number; xrun: WatchXrun }
  | {
      type: 'underrun-seen';
      timeMs: number;
      stream: string;
      state: string;
      availMax: number | null;
      avail: number | null;
      hwPtr: number | null;
      applPtr: number | null;
    }
  | { type: 'stream-stopped'; timeMs: number; stream: string; state: string }
  | { type: 'ranking'; timeMs: number; ranking: WatchRanking }
  | { type: 'watch-report'; timeMs: number; report: SessionReport; watch: WatchSummary };

export type WatchEvent = SessionEvent | WatchOnlyEvent | JackWatchEvent;

/** A watched stream as announced at the start. */
export interface WatchStreamInfo {
  label: string;
  pcm: string;
  substream: number;
  owner: string | null;
  ownerPid: number | null;
  card: string | null;
  driver: string | null;
  rateHz: number | null;
  periodFrames: number | null;
  bufferFrames: number | null;
  bufferMs: number | null;
  format: string | null;
  kernelReports: boolean;
  kernelReason: string | null;
  xrunDebug: boolean;
}

export interface WatchOptions extends RunOptions {
  /** `--pcm` names (empty: every running stream). */
  pcms: string[];
  durationMs: number | null;
  untilXruns: number | null;
  mask: number;
  capture: string;
  /** `--recorder`: the flight recorder (absent: off, and no `recorder` object in the report). */
  recorder?: RecorderMode;
  scrub: boolean;
  /**
   * `--jack`: JACK's own xrun view through libjack (server: `--jack-server`, null the default;
   * logFile: `--jack-log`, jackd's output, which names the late client). Absent: not read.
   */
  jack?: { server: string | null; logFile: string | null } | null;
  /** Called with each human line (xrun lines, rankings); null: none (json/tui). */
  humanOut: ((text: string) => void) | null;
  pollMs?: number;
  rankEveryMs?: number;
}

export interface WatchDeps extends RunDeps {
  read: ReadText;
  /** Lists a folder (the process list for naming sound servers); absent: not looked for. */
  readdir?: (path: string) => string[];
  loadSampler: (procRoot: string) => LoadSampler;
}

export interface WatchOutcome {
  exitCode: number;
  report: SessionReport;
  summary: WatchSummary;
}

export interface WatchHandle {
  /** Session-compatible events (the dashboard and the event log read these). */
  events: SessionEventBus;
  /** Every event, watch-only ones included (earlier ones are replayed first). */
  onEvent(listener: (e: WatchEvent) => void): () => void;
  control: SessionControl;
  done: Promise<number>;
  outcome: Promise<WatchOutcome>;
}

/** What a watch watches: the kernel streams, or none when only JACK's view is read. */
export interface WatchTargets {
  discovery: AsoundDiscovery;
  scan: StreamScan;
  streams: WatchedStream[];
  /** Why no kernel stream is watched (`--jack` with nothing playing in the kernel); null: streams found. */
  jackOnlyReason: string | null;
}

/**
 * Finds what to watch, or throws the plain "nothing to watch" error before anything changes.
 * With `jack` (watch --jack) and no --pcm, nothing playing in the kernel is not an error: a
 * JACK server on the dummy backend (or a network one) drives no kernel PCM, and JACK's own view
 * is still worth reading.
 */
export function findWatchTargets(
  options: Pick<WatchOptions, 'pcms' | 'roots'> & { jack?: boolean },
  deps: Pick<WatchDeps, 'discover' | 'read' | 'readdir'>,
): WatchTargets {
  const discovery = deps.discover(options.roots.procRoot);
  const scan = scanStreams(discovery, options.roots.procRoot, deps.read);
  // Sound servers are only looked for when there is nothing to watch (to explain why).
  const servers = (): RunningServer[] =>
    deps.readdir ? findSoundServers(options.roots.procRoot, deps.readdir, deps.read) : [];
  let streams: WatchedStream[];
  try {
    streams = chooseStreams(
      scan,
      options.pcms,
      options.roots.procRoot,
      discovery.streams.map((s) => s.pcm),
    );
  } catch (err) {
    if (
      !(err instanceof XrunhuntError) ||
      !/^(nothing is playing|no kernel stream)/.test(err.message)
    )
      throw err;
    if (options.jack && options.pcms.length === 0)
      return { discovery, scan, streams: [], jackOnlyReason: err.message };
    streams = chooseStreams(
      scan,
      options.pcms,
      options.roots.procRoot,
      discovery.streams.map((s) => s.pcm),
      servers(),
    );
  }
  return { discovery, scan, streams, jackOnlyReason: null };
}

function streamInfo(w: WatchedStream): WatchStreamInfo {
  return {
    label: streamLabel(w),
    pcm: w.pcm,
    substream: w.substream,
    owner: w.owner,
    ownerPid: w.ownerPid,
    card: w.cardId,
    driver: w.driver,
    rateHz: w.hw.rateHz ?? null,
    periodFrames: w.hw.periodFrames ?? null,
    bufferFrames: w.hw.bufferFrames ?? null,
    bufferMs: w.bufferMs,
    format: w.hw.format ?? null,
    kernelReports: w.kernel.reports,
    kernelReason: w.kernel.reason,
    xrunDebug: w.xrunDebugPath !== null,
  };
}

/** The session parameters a watch records (so readers of session bundles understand it). */
export function watchParams(
  o: Pick<WatchOptions, 'durationMs' | 'untilXruns' | 'mask' | 'capture' | 'outDir' | 'scrub'>,
  streams: readonly WatchedStream[],
  jack: WatchOptions['jack'] = null,
): SessionParams {
  const first = streams[0];
  const jackLabel = jack ? `JACK (${jack.server ?? 'default server'})` : null;
  return {
    device: `watch: ${[...streams.map((s) => streamLabel(s)), ...(jackLabel ? [jackLabel] : [])].join(', ')}`,
    rateHz: first?.hw.rateHz ?? 0,
    periodFrames: first?.hw.periodFrames ?? 0,
    periods:
      first?.hw.bufferFrames && first.hw.periodFrames
        ? Math.round(first.hw.bufferFrames / first.hw.periodFrames)
        : 0,
    phasePlan: WATCH_PHASE,
    durationMs: o.durationMs,
    mask: o.mask,
    capture: o.capture,
    pcm: first?.pcm ?? null,
    loadDir: '',
    outDir: o.outDir,
    maxXruns: o.untilXruns,
    rtPriority: null,
    cpu: null,
    injectStall: false,
    scrub: o.scrub,
  };
}

/** The watch-only event types (the session bus and the dashboard never see them). */
const WATCH_ONLY_TYPES: ReadonlySet<string> = new Set([
  'jack-start',
  'jack-xrun',
  'jack-incident',
  'jack-clients',
  'jack-shutdown',
  'watch-start',
  'watch-xrun',
  'underrun-seen',
  'stream-stopped',
  'ranking',
  'watch-report',
]);

function isSessionEvent(e: WatchEvent): e is SessionEvent {
  return !WATCH_ONLY_TYPES.has(e.type);
}

/** Starts watching `streams` (from findWatchTargets); returns events, controls and outcome. */
export function startWatch(
  options: WatchOptions,
  targets: Pick<WatchTargets, 'discovery' | 'streams'> & { jackOnlyReason?: string | null },
  signal: AbortSignal,
  deps: WatchDeps,
): WatchHandle {
  // Every event, watch-only ones included; the watch report is the last.
  const bus = new EventBus<WatchEvent>({
    terminal: 'watch-report',
    headerTypes: ['session-start', 'watch-start', 'playback-started'],
  });
  const sessionBus = new SessionEventBus();
  bus.on((e) => {
    if (isSessionEvent(e)) sessionBus.emit(e);
  });
  const stopper = createRunStopper(signal, 'interrupted (Ctrl-C)');
  let stackDumps: ((on: boolean) => void) | null = null;
  const control: SessionControl = {
    stop: () => stopper.request('stopped from the dashboard'),
    pauseLoad: () => undefined,
    resumeLoad: () => undefined,
    nextPhase: () => undefined,
    setStackDumps: (on) => stackDumps?.(on),
  };
  const outcome = runWatch(options, targets, deps, bus, stopper, (f) => (stackDumps = f));
  const done = settleRun(outcome, 'watch', {
    get isEnded() {
      return sessionBus.isEnded;
    },
    emit: (e) => bus.emit(e),
  });
  return {
    events: sessionBus,
    onEvent: (l) => {
      for (const e of bus.history) l(e);
      return bus.on(l);
    },
    control,
    done,
    outcome,
  };
}

async function runWatch(
  o: WatchOptions,
  targets: Pick<WatchTargets, 'discovery' | 'streams'> & { jackOnlyReason?: string | null },
  deps: WatchDeps,
  bus: EventBus<WatchEvent>,
  stopper: ReturnType<typeof createRunStopper>,
  setStackDumps: (f: (on: boolean) => void) => void,
): Promise<WatchOutcome> {
  const { streams, discovery } = targets;
  const pollMs = o.pollMs ?? DEFAULT_POLL_MS;
  const rankEveryMs = o.rankEveryMs ?? DEFAULT_RANK_EVERY_MS;
  const out = openRunBundle(o.outDir, o.roots);
  // Everything but the final watch report goes into events.ndjson too.
  const emit = (e: WatchEvent): void => {
    if (e.type !== 'watch-report') out.append(e as SessionEvent);
    bus.emit(e);
  };
  const { ctx, notes, t0, elapsed } = createRunContext(deps.now, stopper, emit, o);
  const { warnings, limitations, warn, note } = notes;
  const facts = gatherHostFacts(discovery, o.roots);
  const params = watchParams(o, streams, o.jack);
  // JACK only: no kernel stream is open, so the kernel probes are not run at all.
  const jackOnlyReason = targets.jackOnlyReason ?? null;
  const kernelWatched = jackOnlyReason === null;

  // Which PCMs can have xrun_debug set (one per PCM, whatever the substream).
  const pcmInfos: PcmStreamInfo[] = [];
  for (const s of streams) {
    const info = discovery.streams.find((d) => d.pcm === s.pcm);
    if (info && !pcmInfos.includes(info)) pcmInfos.push(info);
  }
  const withXrunDebug = pcmInfos.filter((p) => p.xrunDebugPath !== undefined);

  const events = new KeptList<SessionKernelEvent>(MAX_KEPT_KERNEL_EVENTS);
  const xruns = new KeptList<WatchXrun>(MAX_KEPT_KERNEL_EVENTS);
  let watchedXruns = 0;
  const sampler = deps.loadSampler(o.roots.procRoot);
  // A status read can make watch the XRUN detector: read it only where the counters are needed.
  const kernelSeen = kernelXrunsCaptured(o.capture, o.recorder);
  const decisions = new Map(streams.map((s) => [s, statusPollDecision(s, kernelSeen)]));
  const statusPolled = (s: WatchedStream): boolean => decisions.get(s)?.readStatus ?? true;
  for (const [s, d] of decisions) {
    if (!d.readStatus) note(`${streamLabel(s)}: ${d.reason}`);
  }
  const poller = createStreamPoller(
    streams,
    deps.read,
    {
      stopped: (label, state, ownerPid) => {
        emit({ type: 'stream-stopped', timeMs: elapsed(), stream: label, state });
        note(
          `${label} stopped (${state === 'closed' ? 'closed' : `now owned by pid ${ownerPid}`})`,
        );
      },
      underrun: (label, st) =>
        emit({
          type: 'underrun-seen',
          timeMs: elapsed(),
          stream: label,
          state: st.state,
          availMax: st.availMax ?? null,
          avail: st.avail ?? null,
          hwPtr: st.hwPtr ?? null,
          applPtr: st.applPtr ?? null,
        }),
      nothingLeft: () =>
        stopper.request('nothing is playing any more (every watched stream closed)'),
    },
    statusPolled,
  );
  let jackIncidents = 0;
  const untilXrunsCheck = (): void => {
    if (o.untilXruns !== null && watchedXruns + jackIncidents >= o.untilXruns)
      stopper.request(`${o.untilXruns} xrun(s) reached (--until-xruns)`);
  };
  const jack = o.jack
    ? createJackProbe({
        server: o.jack.server,
        logFile: o.jack.logFile,
        emit,
        humanOut: o.humanOut,
        onIncident: () => {
          jackIncidents++;
          untilXrunsCheck();
        },
      })
    : null;
  const ranking = (): WatchRanking => rankWatch(streams, xruns.items, poller.polled);

  const onKernel = (batch: CapturedKernelEvent[]): void => {
    for (const { event } of batch) {
      const now = elapsed();
      const se: SessionKernelEvent = { ...event, phase: WATCH_PHASE };
      const index = events.push(se);
      const stream = attributeStream(se.pcm, streams);
      const x: WatchXrun = {
        index: index ?? events.total - 1,
        timeMs: now,
        pcm: se.pcm,
        stream: stream ? streamLabel(stream) : null,
        owner: stream?.owner ?? null,
        event: se,
        load: stream ? sampler.snapshot(now) : null,
      };
      xruns.push(x);
      if (x.stream !== null && se.kind === 'xrun') watchedXruns++;
      emit({ type: 'kernel-event', timeMs: now, event: se, matchedXrun: null });
      emit({ type: 'watch-xrun', timeMs: now, xrun: x });
      if (stream) o.humanOut?.(renderXrunLine(x) + '\n');
      untilXrunsCheck();
    }
  };

  const kernel = createKernelProbes({
    command: 'watch',
    capture: o.capture,
    mask: o.mask,
    xrunDebugAvailable: withXrunDebug.length > 0,
    journalDir: o.journalDir,
    toolVersion: o.toolVersion,
    select: deps.selectCapture,
    onEvents: onKernel,
    streams: () => withXrunDebug,
    guardArgs: () => withXrunDebug.map((p) => `--pcm ${p.pcm}`).join(' '),
    emit,
    elapsed,
    warn,
  });
  const { capture, xrunDebug } = kernel;
  setStackDumps(kernel.setStackDumps);
  // The flight recorder watches every CPU; W comes from the first watched stream's buffer.
  const firstHw = streams[0]?.hw;
  const recorder = o.recorder
    ? createRecorderProbe({
        mode: o.recorder,
        journalDir: o.journalDir,
        toolVersion: o.toolVersion,
        command: `watch --recorder ${o.recorder}`,
        sysRoot: o.roots.sysRoot,
        procRoot: o.roots.procRoot,
        bufferSeconds: () =>
          firstHw?.bufferFrames && firstHw.rateHz ? firstHw.bufferFrames / firstHw.rateHz : null,
      })
    : null;
  // Load baseline and dashboard stats once a second.
  const loadSampling = createIntervalProbe(
    'load sampler',
    TICK_MS,
    () => {
      const t = elapsed();
      sampler.tick(t);
      emit({
        type: 'stats',
        timeMs: t,
        elapsedMs: t,
        xruns: watchedXruns,
        kernelEvents: events.total,
        headroom: null,
        phase: WATCH_PHASE,
        load: null,
        loadPaused: false,
      });
    },
    { atStart: () => sampler.tick(elapsed()) },
  );
  const polling = createIntervalProbe('stream poller', pollMs, () => poller.poll(), {
    atStart: () => poller.poll(),
  });
  const liveRanking = createIntervalProbe('live ranking', rankEveryMs, () => {
    const r = ranking();
    emit({ type: 'ranking', timeMs: elapsed(), ranking: r });
    o.humanOut?.(renderRankingText(r, elapsed()));
  });

  let durationMs = 0;
  return runLifecycle(
    ctx,
    { ...o, command: 'watch' },
    kernelWatched
      ? [
          capture,
          xrunDebug,
          ...(recorder ? [recorder] : []),
          loadSampling,
          polling,
          liveRanking,
          ...(jack ? [jack] : []),
        ]
      : [...(jack ? [jack] : []), ...(recorder ? [recorder] : []), loadSampling],
    {
      init: () => {
        emit({
          type: 'session-start',
          timeMs: elapsed(),
          params,
          host: facts.summary,
          startedAt: new Date().toISOString(),
          logPath: out.logPath,
        });
        emit({ type: 'watch-start', timeMs: elapsed(), streams: streams.map(streamInfo) });
        // The dashboard's stream panel shows the (first) watched stream as the one "playing".
        const first = streams[0];
        if (first && first.hw.rateHz && first.hw.periodFrames && first.hw.bufferFrames) {
          emit({
            type: 'playback-started',
            timeMs: elapsed(),
            device: streamLabel(first),
            granted: {
              rateHz: first.hw.rateHz,
              periodFrames: first.hw.periodFrames,
              bufferFrames: first.hw.bufferFrames,
            },
            policy: `played by ${first.owner ?? 'an unknown owner'}`,
            hwPcm: first.pcm,
          });
        }
        for (const s of streams) {
          note(
            `watching ${streamLabel(s)}: ${s.hw.periodFrames ?? '?'} / ${s.hw.bufferFrames ?? '?'} frames at ${s.hw.rateHz ?? '?'} Hz${s.kernel.reports ? '' : ` (${s.kernel.reason})`}`,
          );
        }
        if (!kernelWatched)
          limitations.push(
            `No kernel stream is watched (${jackOnlyReason}): only JACK's own view was read, so this report has no kernel XRUN dumps.`,
          );
        if (withXrunDebug.length < pcmInfos.length) {
          const why = explainNoXrunDebug(o.roots, discovery, facts.summary.kernelRelease);
          limitations.push(
            `No xrun_debug for ${pcmInfos
              .filter((p) => !p.xrunDebugPath)
              .map((p) => p.pcm)
              .join(', ')}: ${why.message}. To see the kernel code at each underrun: ${why.hint}.`,
          );
        }
        if (o.capture === 'none' && kernelWatched)
          limitations.push(
            '--capture none: xrunhunt did not read the kernel log, so this report has no XRUN dumps; only the streams\' own counters were watched. xrun_debug was still set: the dumps are in the kernel log ("journalctl -k | xrunhunt analyze -").',
          );
        if (o.mask === 0 && kernelWatched)
          limitations.push(
            '--mask 0: xrun_debug was not changed, so the kernel printed no XRUN dumps.',
          );
      },
      afterApply: (probe) => {
        if (probe === capture && capture.kprobe) {
          const i = limitations.findIndex((x) => x.startsWith('No xrun_debug'));
          if (i >= 0) limitations.splice(i, 1);
          if (streams.length > 1)
            limitations.push(
              `The kprobe backend does not name the PCM of an XRUN: with ${streams.length} streams watched, its events cannot be put down to one stream and are counted apart (watch one stream with --pcm to attribute them).`,
            );
        }
        const server = probe === jack && !kernelWatched ? jack.server() : null;
        if (server) {
          // JACK only: the run's timing is JACK's cycle (one period is every client's deadline).
          params.rateHz = server.sampleRate;
          params.periodFrames = server.bufferFrames;
          params.periods = 1;
        }
        if (probe === xrunDebug || (!kernelWatched && probe === (jack ?? loadSampling))) {
          if (kernelWatched) kernel.emitStatus();
          emit({
            type: 'phase-start',
            timeMs: elapsed(),
            phase: WATCH_PHASE,
            kind: WATCH_PHASE,
            index: 0,
            total: 1,
            durationMs: o.durationMs ?? 0,
          });
        }
      },
      run: async () => {
        const limit =
          o.durationMs === null
            ? null
            : setTimeout(
                () => stopper.request(`--duration ${Math.round(o.durationMs! / 1000)} s reached`),
                o.durationMs,
              );
        if (!ctx.stop.aborted)
          await new Promise<void>((r) =>
            ctx.stop.addEventListener('abort', () => r(), { once: true }),
          );
        if (limit) clearTimeout(limit);
        durationMs = elapsed();
      },
      analyze: () => analyze(),
    },
  );

  /** The report and the bundle: the machine is already back. */
  async function analyze(): Promise<WatchOutcome> {
    const reason = stopper.reason ?? 'stopped';
    note(`stopped: ${reason}`);
    if (events.dropped > 0)
      warnings.push(
        `long watch: ${events.dropped} kernel events beyond the first ${MAX_KEPT_KERNEL_EVENTS} were counted (and ranked by offender) but not kept in detail`,
      );
    emit({
      type: 'phase-end',
      timeMs: elapsed(),
      phase: WATCH_PHASE,
      index: 0,
      xruns: watchedXruns,
      throughput: null,
      cut: false,
    });
    const final = ranking();
    const guardStatus = xrunDebug.status();
    const { report, summary } = buildWatchReport({
      params,
      host: facts.summary,
      durationMs,
      streams,
      events: events.items,
      xruns: xruns.items,
      ranking: final,
      capture: {
        source: capture.sourceName,
        lostMessages: capture.lostMessages,
        pcm: guardStatus.pcm,
        mask: guardStatus.mask,
      },
      clockAlignment: capture.clockAlignment,
      offsetNs: capture.offsetNs,
      startNs: Number(t0),
      pollMs,
      stopReason: reason,
      stopped: [...poller.stopped],
      limitations,
      warnings,
      bundle: o.outDir,
      files: out.files,
    });
    const jackView = jack?.view() ?? null;
    summary.jack = jackView;
    if (jackView) {
      report.conclusion.push(...jackConclusion(jackView));
      if (jackView.incidents.length > 0) report.exitCode = 2;
    }
    if (recorder) {
      report.recorder = recorder.status();
      // The first watched stream's timing; its writer is found in the trace (the task each sound
      // interrupt wakes), since watch does not know the application's threads.
      if (firstHw?.periodFrames && firstHw.bufferFrames && firstHw.rateHz) {
        const explained = recorder.explain({
          periodSeconds: firstHw.periodFrames / firstHw.rateHz,
          bufferSeconds: firstHw.bufferFrames / firstHw.rateHz,
        });
        if (explained) {
          report.recorder.breakdown = explained;
          const said = breakdownConclusion(explained.summary);
          if (said) report.conclusion.push(said);
        }
      }
    }
    const first = streams[0];
    await out.writeFor(report, warnings, () => ({
      bundle: {
        ...sessionToBundle({
          report,
          ...runBundleBasics({
            host: facts.bundle as BundleHost,
            machineId: o.machineId,
            toolVersion: o.toolVersion,
            events: events.items,
            captureBackend: kernel.backend(),
          }),
          // JACK only: JACK's ports are mono 32-bit float, its deadline one period.
          channels: first?.hw.channels ?? (jackView ? 1 : 0),
          format: first?.hw.format ?? (jackView ? 'FLOAT_LE' : 'unknown'),
          bufferFrames: first?.hw.bufferFrames ?? jackView?.server.bufferFrames ?? 0,
          rtPolicy: 'unknown',
          rtPriority: null,
          playbackMs: durationMs,
          histograms: null,
          kernelOffsetNs: capture.offsetNs,
        }),
        kind: 'watch',
      },
      reportText: renderWatchText(report, summary),
      probeFiles: [
        ...(kernelWatched ? capture.bundleFiles() : []),
        ...(recorder?.bundleFiles() ?? []),
        ...(jack?.bundleFiles() ?? []),
      ],
      scrub: o.scrub,
    }));
    emit({ type: 'ranking', timeMs: elapsed(), ranking: final });
    emit({ type: 'report', timeMs: elapsed(), report });
    emit({ type: 'session-end', timeMs: elapsed(), exitCode: report.exitCode });
    for (const w of await out.close(o.scrub)) o.stderr.write(`xrunhunt: warning: ${w}\n`);
    // Last, so NDJSON readers find the whole result on the final line.
    emit({ type: 'watch-report', timeMs: elapsed(), report, watch: summary });
    return { exitCode: report.exitCode, report, summary };
  }
}
