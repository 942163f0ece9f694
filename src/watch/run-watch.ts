// `xrunhunt watch`: a passive session. It plays nothing and loads nothing; it finds the
// streams already playing, turns on xrun_debug for their PCMs (journaled, restored on every
// exit path) or uses the kprobe backend where xrun_debug is missing, follows the kernel log,
// attributes each XRUN to a stream and its owner with the machine's load at that moment,
// polls the streams' own counters for underruns the kernel does not report, and ends with
// the same report and bundle as a session (kind 'watch'). Every machine access comes in
// through WatchDeps.
import { createRunNotes } from '../run/run-notes.js';
import { join } from 'node:path';
import * as os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { XrunhuntError } from '../errors.js';
import { RULES_VERSION } from '../analysis/index.js';
import type { XrunEvent as AnalyzerEvent } from '../analysis/index.js';
import type { BundleHost, CaptureBackend } from '../bundle/index.js';
import type { AsoundDiscovery, PcmStreamInfo } from '../proc/index.js';
import {
  describeRestoreReport,
  explainXrunDebugAbsence,
  readKernelConfig,
  readKernelRelease,
  restorePendingJournals,
} from '../proc/index.js';
import {
  guardedPcms,
  restoreXrunDebugReporting,
  takeXrunDebug,
  type XrunDebugGuard,
} from '../run/xrun-debug-guard.js';
import type { SelectedCapture } from '../kernel/source-select.js';
import type { CaptureContext, KernelCaptureSource } from '../kernel/source-contract.js';
import type { EventLogWriter } from '../session/event-log.js';
import type {
  SessionControl,
  SessionEvent,
  SessionKernelEvent,
  SessionParams,
} from '../session/events.js';
import { SessionEventBus } from '../session/events.js';
import { gatherHostFacts, type HostFacts } from '../session/host-facts.js';
import { createLiveAnalyzer } from '../session/live-analyzer.js';
import {
  BUNDLE_FILES,
  openBundleEventLog,
  sessionToBundle,
  writeBundleFolder,
} from '../session/session-bundle.js';
import type { SessionReport } from '../session/report-model.js';
import { sampleShowsUnderrun } from './hidden-xruns.js';
import type { LoadSampler } from './load-sampler.js';
import type { ReadText, StreamScan, WatchedStream } from './running-streams.js';
import {
  chooseStreams,
  findSoundServers,
  scanStreams,
  streamLabel,
  type RunningServer,
} from './running-streams.js';
import { parseStreamStatus } from './stream-proc-formats.js';
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

/** After stopping, keep reading the kernel log this long (the last dumps are still being printed). */
const DRAIN_MS = 400;
/** A pause in the kernel log this long means the dump being printed is complete. */
const QUIET_FLUSH_MS = 300;
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

export type WatchEvent = SessionEvent | WatchOnlyEvent;

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

export interface WatchOptions {
  /** `--pcm` names (empty: every running stream). */
  pcms: string[];
  durationMs: number | null;
  untilXruns: number | null;
  mask: number;
  capture: string;
  roots: { procRoot: string; sysRoot: string; bootRoot: string };
  journalDir: string;
  outDir: string | null;
  toolVersion: string;
  machineId: () => string;
  scrub: boolean;
  stderr: Writable;
  stdin: Readable;
  interactive: boolean;
  /** Progress notes on stderr. */
  progress: boolean;
  /** Called with each human line (xrun lines, rankings); null: none (json/tui). */
  humanOut: ((text: string) => void) | null;
  pollMs?: number;
  rankEveryMs?: number;
}

export interface WatchDeps {
  now: () => bigint;
  discover: (procRoot: string) => AsoundDiscovery;
  read: ReadText;
  /** Lists a folder (the process list for naming sound servers); absent: not looked for. */
  readdir?: (path: string) => string[];
  selectCapture: (
    capture: string,
    signal: AbortSignal,
    context?: CaptureContext,
  ) => Promise<SelectedCapture>;
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

const errMsg = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Finds what to watch, or throws the plain "nothing to watch" error before anything changes. */
export function findWatchTargets(
  options: Pick<WatchOptions, 'pcms' | 'roots'>,
  deps: Pick<WatchDeps, 'discover' | 'read' | 'readdir'>,
): { discovery: AsoundDiscovery; scan: StreamScan; streams: WatchedStream[] } {
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
    streams = chooseStreams(
      scan,
      options.pcms,
      options.roots.procRoot,
      discovery.streams.map((s) => s.pcm),
      servers(),
    );
  }
  return { discovery, scan, streams };
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
): SessionParams {
  const first = streams[0];
  return {
    device: `watch: ${streams.map((s) => streamLabel(s)).join(', ')}`,
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

/** Starts watching `streams` (from findWatchTargets); returns events, controls and outcome. */
export function startWatch(
  options: WatchOptions,
  targets: { discovery: AsoundDiscovery; streams: WatchedStream[] },
  signal: AbortSignal,
  deps: WatchDeps,
): WatchHandle {
  const bus = new SessionEventBus();
  const listeners = new Set<(e: WatchEvent) => void>();
  const stopCtl = new AbortController();
  let stopReason: string | null = null;
  const requestStop = (reason: string): void => {
    if (stopCtl.signal.aborted) return;
    stopReason = reason;
    stopCtl.abort(new Error(reason));
  };
  if (signal.aborted) requestStop('interrupted');
  signal.addEventListener('abort', () => requestStop('interrupted (Ctrl-C)'), { once: true });
  let stackHook: ((on: boolean) => void) | null = null;
  const control: SessionControl = {
    stop: () => requestStop('stopped from the dashboard'),
    pauseLoad: () => undefined,
    resumeLoad: () => undefined,
    nextPhase: () => undefined,
    setStackDumps: (on) => stackHook?.(on),
  };
  // Events emitted before a listener subscribes (the start runs synchronously) are replayed to it.
  const history: WatchEvent[] = [];
  const emit = (e: WatchEvent): void => {
    history.push(e);
    for (const l of [...listeners]) {
      try {
        l(e);
      } catch {
        // an observer must not break the watch (it still restores /proc)
      }
    }
    if (
      !e.type.startsWith('watch-') &&
      !['underrun-seen', 'stream-stopped', 'ranking'].includes(e.type)
    )
      bus.emit(e as SessionEvent);
  };
  const outcome = runWatch(options, targets, deps, emit, stopCtl.signal, {
    requestStop,
    reason: () => stopReason,
    setStackHook: (f) => (stackHook = f),
  });
  outcome.catch((err: unknown) => {
    if (bus.isEnded) return;
    emit({ type: 'warning', timeMs: 0, message: `watch failed: ${errMsg(err)}` });
    emit({ type: 'session-end', timeMs: 0, exitCode: 1 });
  });
  const done = outcome.then((o) => o.exitCode);
  done.catch(() => undefined);
  return {
    events: bus,
    onEvent: (l) => {
      for (const e of history) l(e);
      listeners.add(l);
      return () => listeners.delete(l);
    },
    control,
    done,
    outcome,
  };
}

interface Hooks {
  requestStop(reason: string): void;
  reason(): string | null;
  setStackHook(f: ((on: boolean) => void) | null): void;
}

async function runWatch(
  o: WatchOptions,
  targets: { discovery: AsoundDiscovery; streams: WatchedStream[] },
  deps: WatchDeps,
  emit: (e: WatchEvent) => void,
  stop: AbortSignal,
  hooks: Hooks,
): Promise<WatchOutcome> {
  const streams = targets.streams;
  const discovery = targets.discovery;
  const pollMs = o.pollMs ?? DEFAULT_POLL_MS;
  const rankEveryMs = o.rankEveryMs ?? DEFAULT_RANK_EVERY_MS;
  const t0 = deps.now();
  const elapsed = (): number => Number(deps.now() - t0) / 1e6;
  const { warnings, limitations, warn, note } = createRunNotes({
    emitWarning: (message) => emit({ type: 'warning', timeMs: elapsed(), message }),
    progress: o.progress,
    stderr: o.stderr,
  });

  // ---- init ---------------------------------------------------------------------------
  let log: EventLogWriter | null = null;
  if (o.outDir) {
    log = openBundleEventLog(o.outDir);
  }
  const l = log;
  const emitLogged = (e: WatchEvent): void => {
    l?.append(e as SessionEvent);
    emit(e);
  };
  const facts: HostFacts = gatherHostFacts(discovery, o.roots);
  const params = watchParams(o, streams);
  emitLogged({
    type: 'session-start',
    timeMs: elapsed(),
    params,
    host: facts.summary,
    startedAt: new Date().toISOString(),
    logPath: log?.path ?? null,
  });
  emitLogged({ type: 'watch-start', timeMs: elapsed(), streams: streams.map(streamInfo) });
  // The dashboard's stream panel shows the (first) watched stream as the one "playing".
  const first = streams[0];
  if (first && first.hw.rateHz && first.hw.periodFrames && first.hw.bufferFrames) {
    emitLogged({
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

  const pending = await restorePendingJournals(o.journalDir, {
    stderr: o.stderr,
    stdin: o.stdin,
    interactive: o.interactive,
  });
  for (const r of pending.restored) {
    warn(`restored settings left by a killed run (${describeRestoreReport(r.report).join('; ')})`);
  }

  // Which PCMs can have xrun_debug set (one per PCM, whatever the substream).
  const pcmInfos: PcmStreamInfo[] = [];
  for (const s of streams) {
    const info = discovery.streams.find((d) => d.pcm === s.pcm);
    if (info && !pcmInfos.includes(info)) pcmInfos.push(info);
  }
  const withXrunDebug = pcmInfos.filter((p) => p.xrunDebugPath !== undefined);
  if (withXrunDebug.length < pcmInfos.length) {
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
    limitations.push(
      `No xrun_debug for ${pcmInfos
        .filter((p) => !p.xrunDebugPath)
        .map((p) => p.pcm)
        .join(', ')}: ${why.message}. To see the kernel code at each underrun: ${why.hint}.`,
    );
  }
  if (o.capture === 'none')
    limitations.push(
      "--capture none: the kernel log was not read, so no XRUN dumps were seen; only the streams' own counters were watched.",
    );
  if (o.mask === 0)
    limitations.push('--mask 0: xrun_debug was not changed, so the kernel printed no XRUN dumps.');

  // ---- apply --------------------------------------------------------------------------
  let capture: SelectedCapture = { source: null, name: 'none', skipped: [] };
  let source: KernelCaptureSource | null = null;
  let xd: XrunDebugGuard | null = null;
  const live = createLiveAnalyzer();
  const kernelLines: string[] = [];
  const events: SessionKernelEvent[] = [];
  const xruns: WatchXrun[] = [];
  const polled = new Map<string, number>();
  const stopped: string[] = [];
  const sampler = deps.loadSampler(o.roots.procRoot);
  let offsetNs: number | null = null;
  let clockAlignment: 'marker' | 'assumed' | 'none' = 'none';
  let captureLoop: Promise<void> = Promise.resolve();
  const timers: NodeJS.Timeout[] = [];
  let lastLineAt = 0;
  let restored = false;

  const ranking = (): WatchRanking => rankWatch(streams, xruns, polled);
  const watchedXruns = (): number =>
    xruns.filter((x) => x.stream !== null && x.event.kind === 'xrun').length;

  const onKernel = (batch: AnalyzerEvent[]): void => {
    for (const e of batch) {
      const now = elapsed();
      const se: SessionKernelEvent = {
        kind: e.kind,
        pcm: e.pcm,
        time: e.time ?? null,
        sessionMs: null,
        phase: WATCH_PHASE,
        offender: {
          class: e.offender.class,
          function: e.offender.function,
          module: e.offender.module,
          signature: e.offender.signature,
        },
        frames: e.frames.map((f) => (f.module ? `${f.function} [${f.module}]` : f.function)),
      };
      if (se.time !== null && offsetNs !== null) {
        se.sessionMs = (se.time * 1e9 + offsetNs - Number(t0)) / 1e6;
      }
      events.push(se);
      const stream = attributeStream(se.pcm, streams);
      const x: WatchXrun = {
        index: events.length - 1,
        timeMs: now,
        pcm: se.pcm,
        stream: stream ? streamLabel(stream) : null,
        owner: stream?.owner ?? null,
        event: se,
        load: stream ? sampler.snapshot(now) : null,
      };
      xruns.push(x);
      emitLogged({ type: 'kernel-event', timeMs: now, event: se, matchedXrun: null });
      emitLogged({ type: 'watch-xrun', timeMs: now, xrun: x });
      if (stream) o.humanOut?.(renderXrunLine(x) + '\n');
      if (o.untilXruns !== null && watchedXruns() >= o.untilXruns) {
        hooks.requestStop(`${o.untilXruns} xrun(s) reached (--until-xruns)`);
      }
    }
  };

  const restoreXrunDebug = (): void => {
    if (restored || !xd) return;
    restored = true;
    restoreXrunDebugReporting(xd, { warn, note });
  };

  let durationMs = 0;
  try {
    if (o.capture !== 'none' && o.mask !== 0) {
      capture = await deps.selectCapture(o.capture, stop, {
        xrunDebugAvailable: withXrunDebug.length > 0,
        journalDir: o.journalDir,
        toolVersion: o.toolVersion,
        command: `watch --capture ${o.capture}`,
      });
      source = capture.source;
      for (const s of capture.skipped) warn(`kernel log: ${s}`);
    }
    const kprobe = capture.name === 'trace_pipe';
    if (kprobe) {
      const i = limitations.findIndex((x) => x.startsWith('No xrun_debug'));
      if (i >= 0) limitations.splice(i, 1);
      note('capturing XRUN stacks through a kprobe on __snd_pcm_xrun (trace_pipe)');
      if (streams.length > 1)
        limitations.push(
          `The kprobe backend does not name the PCM of an XRUN: with ${streams.length} streams watched, its events cannot be put down to one stream and are counted apart (watch one stream with --pcm to attribute them).`,
        );
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
      timers.push(
        setInterval(() => {
          if (lastLineAt && Date.now() - lastLineAt > QUIET_FLUSH_MS) {
            lastLineAt = 0;
            onKernel(live.flush());
          }
        }, QUIET_FLUSH_MS),
      );
      const measured = src.measureClockOffset ? await src.measureClockOffset() : null;
      offsetNs = measured ? measured.offsetNs : 0;
      clockAlignment = measured ? 'marker' : 'assumed';
    } else if (o.capture !== 'none' && o.mask !== 0) {
      limitations.push(
        `No kernel log could be read (${capture.skipped.join('; ') || 'no source'}): kernel XRUN dumps cannot be seen. Run as root.`,
      );
    }
    if (!kprobe && source && o.mask !== 0 && withXrunDebug.length > 0) {
      const took = takeXrunDebug(withXrunDebug, o.mask, {
        journalDir: o.journalDir,
        toolVersion: o.toolVersion,
        command: `watch ${withXrunDebug.map((p) => `--pcm ${p.pcm}`).join(' ')}`,
      });
      if (took.ok) {
        xd = took.guard;
        note(
          `xrun_debug set to ${o.mask} on ${xd.changes.map((c) => `${c.pcm} (was ${String(c.from)})`).join(', ')}`,
        );
      } else {
        warn(`could not set xrun_debug: ${took.reason}`);
        limitations.push('xrun_debug could not be set; kernel dumps may be missing.');
      }
    }
    hooks.setStackHook((on) => {
      if (!xd) return;
      try {
        xd.setStackDumps(on);
        emitCapture();
      } catch (err) {
        warn(`could not change xrun_debug: ${errMsg(err)}`);
      }
    });
    const emitCapture = (): void =>
      emitLogged({
        type: 'capture-status',
        timeMs: elapsed(),
        source: capture.name,
        lostMessages: source?.lostMessages ?? 0,
        mask: xd?.mask ?? null,
        pcm: xd ? guardedPcms(xd) : null,
        stackDumps: xd !== null && (xd.mask & 2) !== 0,
      });
    emitCapture();
    emitLogged({
      type: 'phase-start',
      timeMs: elapsed(),
      phase: WATCH_PHASE,
      kind: WATCH_PHASE,
      index: 0,
      total: 1,
      durationMs: o.durationMs ?? 0,
    });

    // ---- run: poll the streams, sample the load, rank ----------------------------------
    sampler.tick(elapsed());
    const firstPoll = new Set<string>();
    const poll = (): void => {
      let alive = 0;
      for (const s of streams) {
        const label = streamLabel(s);
        if (stopped.includes(label)) continue;
        const st = parseStreamStatus(deps.read(s.statusPath) ?? '');
        if (
          st.state === 'closed' ||
          (st.ownerPid !== undefined && s.ownerPid !== null && st.ownerPid !== s.ownerPid)
        ) {
          stopped.push(label);
          emitLogged({ type: 'stream-stopped', timeMs: elapsed(), stream: label, state: st.state });
          note(
            `${label} stopped (${st.state === 'closed' ? 'closed' : `now owned by pid ${st.ownerPid}`})`,
          );
          continue;
        }
        alive++;
        // The first read only clears avail_max accumulated before we looked.
        if (!firstPoll.has(label)) {
          firstPoll.add(label);
          continue;
        }
        if (
          s.hw.bufferFrames !== undefined &&
          sampleShowsUnderrun(st, s.hw.bufferFrames, s.direction)
        ) {
          polled.set(label, (polled.get(label) ?? 0) + 1);
          emitLogged({
            type: 'underrun-seen',
            timeMs: elapsed(),
            stream: label,
            state: st.state,
            availMax: st.availMax ?? null,
            avail: st.avail ?? null,
            hwPtr: st.hwPtr ?? null,
            applPtr: st.applPtr ?? null,
          });
        }
      }
      if (alive === 0)
        hooks.requestStop('nothing is playing any more (every watched stream closed)');
    };
    poll();
    timers.push(setInterval(poll, pollMs));
    timers.push(
      setInterval(() => {
        const t = elapsed();
        sampler.tick(t);
        emitLogged({
          type: 'stats',
          timeMs: t,
          elapsedMs: t,
          xruns: watchedXruns(),
          kernelEvents: events.length,
          headroom: null,
          phase: WATCH_PHASE,
          load: null,
          loadPaused: false,
        });
      }, TICK_MS),
    );
    timers.push(
      setInterval(() => {
        const r = ranking();
        emitLogged({ type: 'ranking', timeMs: elapsed(), ranking: r });
        o.humanOut?.(renderRankingText(r, elapsed()));
      }, rankEveryMs),
    );
    if (o.durationMs !== null) {
      timers.push(
        setTimeout(
          () => hooks.requestStop(`--duration ${Math.round(o.durationMs! / 1000)} s reached`),
          o.durationMs,
        ),
      );
    }
    if (!stop.aborted)
      await new Promise<void>((r) => stop.addEventListener('abort', () => r(), { once: true }));
    durationMs = elapsed();
  } finally {
    for (const t of timers) clearInterval(t);
    if (source) await new Promise((r) => setTimeout(r, DRAIN_MS));
    restoreXrunDebug();
    if (source) await source.close().catch(() => undefined);
    await captureLoop.catch((err: unknown) => warn(`kernel log capture failed: ${errMsg(err)}`));
    hooks.setStackHook(null);
  }
  onKernel(live.finish());
  if (source) {
    for (const w of source.warnings) warn(`kernel log: ${w}`);
    if (source.lostMessages > 0)
      warn(
        `${source.lostMessages} kernel messages lost (the ring buffer wrapped before they were read): boot with a larger log_buf_len`,
      );
  }
  for (const w of live.warnings) warnings.push(`analysis: ${w}`);
  const reason = hooks.reason() ?? 'stopped';
  note(`stopped: ${reason}`);
  emitLogged({
    type: 'phase-end',
    timeMs: elapsed(),
    phase: WATCH_PHASE,
    index: 0,
    xruns: watchedXruns(),
    throughput: null,
    cut: false,
  });

  // ---- report and bundle ------------------------------------------------------------------
  const files = o.outDir
    ? {
        bundle: join(o.outDir, BUNDLE_FILES.bundle),
        events: join(o.outDir, BUNDLE_FILES.events),
        kernelLog: join(o.outDir, BUNDLE_FILES.kernelLog),
        report: join(o.outDir, BUNDLE_FILES.report),
      }
    : { bundle: null, events: null, kernelLog: null, report: null };
  const final = ranking();
  const { report, summary } = buildWatchReport({
    params,
    host: facts.summary,
    durationMs,
    streams,
    events,
    xruns,
    ranking: final,
    capture: {
      source: capture.name,
      lostMessages: source?.lostMessages ?? 0,
      pcm: xd ? guardedPcms(xd) : null,
      mask: xd?.mask ?? null,
    },
    clockAlignment,
    offsetNs,
    startNs: Number(t0),
    pollMs,
    stopReason: reason,
    stopped,
    limitations,
    warnings,
    bundle: o.outDir,
    files,
  });
  if (o.outDir) {
    try {
      const captureBackend: CaptureBackend = xd
        ? 'xrun_debug'
        : capture.name === 'trace_pipe'
          ? 'kprobe'
          : 'none';
      const first = streams[0];
      const bundle = sessionToBundle({
        report,
        host: facts.bundle as BundleHost,
        machineId: o.machineId(),
        toolVersion: o.toolVersion,
        createdAt: new Date().toISOString(),
        frames: events.map((e) => e.frames),
        channels: first?.hw.channels ?? 0,
        format: first?.hw.format ?? 'unknown',
        bufferFrames: first?.hw.bufferFrames ?? 0,
        rtPolicy: 'unknown',
        rtPriority: null,
        captureBackend,
        playbackMs: durationMs,
        histograms: null,
        rulesVersion: RULES_VERSION,
      });
      bundle.kind = 'watch';
      await writeBundleFolder({
        dir: o.outDir,
        bundle,
        kernelLog: kernelLines.join('\n') + (kernelLines.length ? '\n' : ''),
        reportText: renderWatchText(report, summary),
        scrub: o.scrub ? { hostnames: [os.hostname()], users: [safeUser()] } : null,
      });
    } catch (err) {
      warnings.push(`could not write the bundle: ${errMsg(err)}`);
      report.warnings = warnings;
      report.files.bundle = null;
    }
  }
  emitLogged({ type: 'ranking', timeMs: elapsed(), ranking: final });
  emitLogged({ type: 'report', timeMs: elapsed(), report });
  emitLogged({ type: 'session-end', timeMs: elapsed(), exitCode: report.exitCode });
  // Last, so NDJSON readers find the whole result on the final line.
  emit({ type: 'watch-report', timeMs: elapsed(), report, watch: summary });
  log?.close();
  return { exitCode: report.exitCode, report, summary };
}

function safeUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}
