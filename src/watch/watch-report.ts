// The finished watch as a session report (so report.txt, `--json`, the bundle, analyze,
// compare and aggregate all take it) plus the watch-only summary: streams and owners,
// underruns seen in the streams' own counters, and the load at the xruns. The XRUNs of a
// watch are the kernel's XRUN events on the watched streams (watch plays nothing itself, so
// there are no userspace xruns to match). Pure: values in, values out.
import { renderJackSection, type JackView } from '../jack/jack-view.js';
import type { CorrelationResult } from '../analysis/correlate.js';
import type { SessionKernelEvent, SessionHostSummary, SessionParams } from '../session/events.js';
import type { SessionReport } from '../session/report-model.js';
import { pushWarningsAndFiles, recorderLines } from '../session/report-text.js';
import {
  buildSessionReport,
  concludeSession,
  offenderName,
  type CollectedXrun,
} from '../session/report-build.js';
import type { WatchedStream } from './running-streams.js';
import { streamLabel } from './running-streams.js';
import type { StreamRank, WatchRanking, WatchXrun } from './watch-ranking.js';

/** Name of the single "phase" a watch has (the whole run). */
export const WATCH_PHASE = 'watch';

/** What the load looked like across the xruns. */
export interface LoadAtXruns {
  /** Processes most often among the busiest at an xrun, with how many xruns they were there for. */
  busiest: { comm: string; xruns: number; meanCpuPct: number }[];
  meanLoad1: number | null;
  /** Mean PSI avg10 "some" share at the xruns, %, null where /proc/pressure is missing. */
  meanPressure: { cpu: number | null; io: number | null; memory: number | null } | null;
  /** Xruns with a load snapshot. */
  sampled: number;
}

/** The watch-only part of the result. */
export interface WatchSummary {
  kind: 'watch';
  streams: StreamRank[];
  ranking: WatchRanking;
  polledUnderruns: number;
  /** Poll interval of the streams' status, ms. */
  pollMs: number;
  loadAtXruns: LoadAtXruns;
  xruns: WatchXrun[];
  stopReason: string;
  /** Streams that stopped (closed) while watched. */
  stopped: string[];
  /** JACK's own view (`watch --jack`); absent or null: not read. */
  jack?: JackView | null;
}

export interface WatchCollected {
  params: SessionParams;
  host: SessionHostSummary;
  durationMs: number;
  streams: WatchedStream[];
  /** Every kernel event read (watched streams or not). */
  events: SessionKernelEvent[];
  xruns: WatchXrun[];
  ranking: WatchRanking;
  capture: {
    source: SessionReport['kernelCapture']['source'];
    lostMessages: number;
    pcm: string | null;
    mask: number | null;
  };
  clockAlignment: 'marker' | 'assumed' | 'none';
  offsetNs: number | null;
  /** CLOCK_MONOTONIC at the watch start, ns. */
  startNs: number;
  pollMs: number;
  stopReason: string;
  stopped: string[];
  limitations: string[];
  warnings: string[];
  bundle: string | null;
  files: SessionReport['files'];
}

/** Sums up the load snapshots taken at the xruns. */
export function summarizeLoad(xruns: readonly WatchXrun[]): LoadAtXruns {
  const withLoad = xruns.filter((x) => x.load !== null);
  const byComm = new Map<string, { xruns: number; cpu: number }>();
  let load1 = 0;
  let nLoad = 0;
  const psi = { cpu: [0, 0], io: [0, 0], memory: [0, 0] } as Record<
    'cpu' | 'io' | 'memory',
    [number, number]
  >;
  let havePsi = false;
  for (const x of withLoad) {
    const l = x.load!;
    if (l.loadavg) {
      load1 += l.loadavg.one;
      nLoad++;
    }
    if (l.pressure) {
      havePsi = true;
      for (const k of ['cpu', 'io', 'memory'] as const) {
        const v = l.pressure[k];
        if (v !== null) {
          psi[k][0] += v;
          psi[k][1]++;
        }
      }
    }
    for (const b of l.busiest) {
      const row = byComm.get(b.comm) ?? { xruns: 0, cpu: 0 };
      row.xruns++;
      row.cpu += b.cpuPct;
      byComm.set(b.comm, row);
    }
  }
  const mean = (k: 'cpu' | 'io' | 'memory'): number | null =>
    psi[k][1] ? Number((psi[k][0] / psi[k][1]).toFixed(1)) : null;
  return {
    busiest: [...byComm.entries()]
      .map(([comm, r]) => ({ comm, xruns: r.xruns, meanCpuPct: Math.round(r.cpu / r.xruns) }))
      .sort(
        (a, b) => b.xruns - a.xruns || b.meanCpuPct - a.meanCpuPct || a.comm.localeCompare(b.comm),
      )
      .slice(0, 5),
    meanLoad1: nLoad ? Number((load1 / nLoad).toFixed(2)) : null,
    meanPressure: havePsi ? { cpu: mean('cpu'), io: mean('io'), memory: mean('memory') } : null,
    sampled: withLoad.length,
  };
}

/** Correlation of a watch: each XRUN "is" its kernel event (identity pairs). */
function identityCorrelation(
  c: WatchCollected,
  xrunEventIndex: number[],
  eventMs: (number | null)[],
): CorrelationResult {
  const eventToXrun: (number | null)[] = c.events.map(() => null);
  xrunEventIndex.forEach((e, i) => (eventToXrun[e] = i));
  const watched = new Set(c.xruns.filter((x) => x.stream !== null).map((x) => x.index));
  return {
    pairs: xrunEventIndex.map((event, xrun) => ({ xrun, event, lagMs: 0 })),
    xrunToEvent: xrunEventIndex.map((e) => e),
    eventToXrun,
    unmatchedXruns: [],
    unmatchedKernelEvents: [],
    otherStreamEvents: c.events.map((_, i) => i).filter((i) => !watched.has(i)),
    unknownStreamEvents: c.events.map((e, i) => (e.pcm === null ? i : -1)).filter((i) => i >= 0),
    eventSessionMs: eventMs,
    xrunSessionMs: xrunEventIndex.map((e) => eventMs[e] ?? 0),
    eventPhase: c.events.map(() => WATCH_PHASE),
    xrunPhase: xrunEventIndex.map(() => WATCH_PHASE),
    window: { beforeMs: 0, afterMs: 0 },
  };
}

/** What to try for a stream's owner when its buffer is too small for this machine. */
function ownerAdvice(s: StreamRank): string {
  const owner = s.owner ?? '';
  const bigger = s.periodFrames !== null ? s.periodFrames * 2 : null;
  if (/pipewire/.test(owner))
    return `give PipeWire a larger quantum to check the buffer is the limit (e.g. "pw-metadata -n settings 0 clock.force-quantum ${bigger ?? 1024}"); if the xruns stop, keep the larger one or remove the offender`;
  if (/jackd|jackdbus/.test(owner))
    return `restart jackd with more frames per period (-p ${bigger ?? 512}) to check the buffer is the limit`;
  if (/pulseaudio/.test(owner))
    return "raise PulseAudio's buffer (default-fragment-size-msec / tsched_buffer_size) to check the buffer is the limit";
  return `configure ${owner || 'the player'} for a larger buffer${bigger !== null ? ` (period ${bigger} instead of ${s.periodFrames})` : ''} to check the buffer is the limit`;
}

const pct = (v: number): string => `${Math.round(v * 100)}%`;
const fmtSecs = (ms: number): string => {
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
};

/** Describes a stream's configuration: `period 256 / buffer 512 at 48000 Hz (10.7 ms)`. */
export function describeConfig(s: StreamRank): string {
  if (s.periodFrames === null || s.bufferFrames === null) return 'configuration unknown';
  return `period ${s.periodFrames} / buffer ${s.bufferFrames}${s.rateHz ? ` at ${s.rateHz} Hz` : ''}${s.bufferMs !== null ? ` (${s.bufferMs.toFixed(1)} ms)` : ''}`;
}

/** The conclusion and suggestions of a watch (pure wording rules). */
export function concludeWatch(
  c: WatchCollected,
  report: SessionReport,
  load: LoadAtXruns,
): { conclusion: string[]; suggestions: string[] } {
  const conclusion: string[] = [];
  const suggestions: string[] = [];
  const r = c.ranking;
  const polled = r.streams.reduce((n, s) => n + s.polledUnderruns, 0);
  const streams = r.streams.map((s) => `${s.label}, ${describeConfig(s)}`).join('; ');
  if (r.streams.length === 0) {
    // JACK only (watch --jack with no kernel stream): the JACK conclusion is added by the watch.
  } else if (r.xruns === 0 && polled === 0) {
    conclusion.push(`No xruns in ${fmtSecs(c.durationMs)} of watching ${streams}.`);
  } else {
    conclusion.push(
      `${r.xruns} kernel XRUN(s) in ${fmtSecs(c.durationMs)} of watching ${streams}` +
        (r.streams.length > 1
          ? ` (${r.streams.map((s) => `${s.owner ?? s.pcm}: ${s.xruns}`).join(', ')})`
          : '') +
        '.',
    );
  }
  // The offender and class-share wording is the session's: reuse its lines.
  const session = concludeSession(report, null, 0);
  for (const line of session.conclusion) {
    if (/^Top offender|of XRUN dumps interrupted/.test(line)) conclusion.push(line);
  }
  for (const s of r.streams) {
    const stream = c.streams.find((w) => streamLabel(w) === s.label);
    if (stream && !stream.kernel.reports) {
      conclusion.push(
        `${s.label}: ${stream.kernel.reason}. Its own counters showed ${s.polledUnderruns} underrun(s) ` +
          `(status read every ${c.pollMs} ms; a lower bound, since each read covers at most one and the owner's own status reads reset the counter).`,
      );
      if (s.polledUnderruns > 0)
        suggestions.push(
          `the underruns of ${s.label} are hidden from the kernel's XRUN reporting; to see the interrupted kernel code, reproduce them with "xrunhunt session --device hw:${stream.card},${stream.device}" (stop ${s.owner ?? 'the owner'} first) at the same period/buffer`,
        );
    } else if (
      s.polledUnderruns > 0 &&
      s.xruns === 0 &&
      c.capture.source !== 'none' &&
      c.capture.mask !== 0
    ) {
      conclusion.push(
        `${s.label}: its counters showed ${s.polledUnderruns} underrun(s) but the kernel printed no XRUN dump for it: the owner recovered (or rewound) before the kernel stopped the stream, so the kernel never saw an xrun to report.`,
      );
    }
  }
  if (load.sampled > 0) {
    const top = load.busiest[0];
    const parts: string[] = [];
    if (top)
      parts.push(
        `the busiest process was most often \`${top.comm}\` (at ${top.xruns} of ${load.sampled}, ${top.meanCpuPct}% CPU on average)`,
      );
    if (load.meanLoad1 !== null) parts.push(`load average ${load.meanLoad1}`);
    if (load.meanPressure?.io != null && load.meanPressure.io >= 1)
      parts.push(`${load.meanPressure.io}% of the time tasks were stalled on IO (PSI)`);
    if (parts.length) conclusion.push(`At the xruns: ${parts.join('; ')}.`);
  }
  if (report.events.length === 0 && report.limitations.length > 0) {
    conclusion.push(`No kernel XRUN dumps were captured. ${report.limitations[0]}`);
  }
  for (const line of session.suggestions) {
    // A session's `try` line replays the session's own player; watch has none: advice only.
    const s = line.replace(/; prove it: xrunhunt try .*$/, '');
    if (!/--period|--rt-priority|xrunhunt stress/.test(s)) suggestions.push(s);
  }
  for (const s of r.streams) if (s.xruns + s.polledUnderruns > 0) suggestions.push(ownerAdvice(s));
  return { conclusion, suggestions };
}

/** Builds the session-compatible report and the watch summary. */
export function buildWatchReport(c: WatchCollected): {
  report: SessionReport;
  summary: WatchSummary;
} {
  const eventMs = c.events.map((e) => e.sessionMs);
  const indexOf = new Map<SessionKernelEvent, number>();
  c.events.forEach((e, i) => indexOf.set(e, i));
  const mine = c.xruns.filter((x) => x.stream !== null && x.event.kind === 'xrun');
  const xrunEventIndex = mine.map((x) => indexOf.get(x.event) ?? x.index);
  const xruns: CollectedXrun[] = mine.map((x) => {
    // The kernel's own time when the clocks were aligned; a time before the watch began
    // means a bad offset, so the time the dump was read is used instead.
    const k = x.event.sessionMs;
    const ms = k !== null && k >= 0 ? k : x.timeMs;
    return { timeMs: ms, monotonicNs: Math.round(c.startNs + ms * 1e6), durationMs: null };
  });
  const report = buildSessionReport({
    params: c.params,
    host: c.host,
    durationMs: c.durationMs,
    phases: [
      {
        name: WATCH_PHASE,
        kind: WATCH_PHASE,
        startMs: 0,
        endMs: c.durationMs,
        throughput: null,
        headroomSamplesUs: [],
      },
    ],
    xruns,
    capture: c.capture,
    events: c.events.map((e) => ({ ...e, phase: WATCH_PHASE })),
    offenders: c.ranking.offenders,
    correlation: identityCorrelation(c, xrunEventIndex, eventMs),
    clockAlignment: c.clockAlignment,
    offsetNs: c.offsetNs,
    policy: null,
    bufferMs: 0,
    limitations: c.limitations,
    warnings: c.warnings,
    bundle: c.bundle,
    files: c.files,
  });
  const polledUnderruns = c.ranking.streams.reduce((n, s) => n + s.polledUnderruns, 0);
  const load = summarizeLoad(c.xruns.filter((x) => x.stream !== null));
  const { conclusion, suggestions } = concludeWatch(c, report, load);
  report.conclusion = conclusion;
  report.suggestions = suggestions;
  report.exitCode = c.ranking.xruns > 0 || polledUnderruns > 0 ? 2 : 0;
  return {
    report,
    summary: {
      kind: 'watch',
      streams: c.ranking.streams,
      ranking: c.ranking,
      polledUnderruns,
      pollMs: c.pollMs,
      loadAtXruns: load,
      xruns: c.xruns,
      stopReason: c.stopReason,
      stopped: c.stopped,
    },
  };
}

/** The plain-text watch report (terminal and report.txt). */
export function renderWatchText(report: SessionReport, summary: WatchSummary): string {
  const out: string[] = ['Conclusion'];
  for (const c of report.conclusion) out.push(`  ${c.replace(/`/g, '')}`);
  if (report.suggestions.length) {
    out.push('', 'What to try');
    for (const s of report.suggestions) out.push(`  - ${s}`);
  }
  out.push('', 'Streams watched');
  if (summary.streams.length === 0) out.push('  none (JACK only)');
  for (const s of summary.streams) {
    out.push(
      `  ${s.label}: ${s.xruns} kernel XRUN(s), ${s.polledUnderruns} underrun(s) in its counters; ${describeConfig(s)}${s.format ? ` ${s.format}` : ''}${s.kernelReports ? '' : '; the kernel does not report its underruns'}`,
    );
  }
  if (summary.stopped.length) out.push(`  stopped while watched: ${summary.stopped.join(', ')}`);
  out.push('', 'Offenders (interrupted kernel code at each XRUN, ranked)');
  if (report.offenders.length === 0) out.push('  none');
  report.offenders.slice(0, 10).forEach((o, i) => {
    out.push(
      `  ${String(i + 1).padStart(2)}. ${pct(o.share).padStart(4)} ${String(o.count).padStart(5)}  ${offenderName(o)}`,
    );
  });
  const r = summary.ranking;
  if (r.xruns > 0) {
    const s = r.classShares;
    out.push(
      '',
      `Where the period interrupt landed: kernel code ${pct(s.kernel)}, idle ${pct(s.idle)}, user space ${pct(s.user)}, process context/unknown ${pct(s.none)}`,
    );
  }
  const l = summary.loadAtXruns;
  if (l.sampled > 0) {
    out.push('', `Load at the xruns (${l.sampled} sampled)`);
    if (l.meanLoad1 !== null) out.push(`  load average (1 min): ${l.meanLoad1}`);
    if (l.meanPressure)
      out.push(
        `  pressure (PSI some avg10): cpu ${l.meanPressure.cpu ?? '-'}%, io ${l.meanPressure.io ?? '-'}%, memory ${l.meanPressure.memory ?? '-'}%`,
      );
    for (const b of l.busiest)
      out.push(`  busiest: ${b.comm} at ${b.xruns} xrun(s), ${b.meanCpuPct}% CPU`);
  }
  out.push('', 'Kernel capture');
  out.push(
    `  source: ${report.kernelCapture.source}; xrun_debug: ${report.kernelCapture.pcm ? `${report.kernelCapture.pcm} mask ${report.kernelCapture.mask ?? '-'}` : 'not set'}; lost messages: ${report.kernelCapture.lostMessages}; ${r.otherEvents} event(s) on other streams or naming none`,
  );
  if (report.recorder) out.push(...recorderLines(report.recorder));
  if (summary.jack) out.push(...renderJackSection(summary.jack));
  for (const x of report.limitations) out.push(`  - ${x}`);
  out.push(`  stopped: ${summary.stopReason}`);
  pushWarningsAndFiles(out, report);
  return out.join('\n') + '\n';
}
