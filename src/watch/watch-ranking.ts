// The live picture watch keeps: kernel XRUN events attributed to the watched streams and
// their owners, underruns seen in the streams' own counters, offenders and class shares.
// Pure: events in, ranking out; the text renderers are pure too.
import type { SessionKernelEvent } from '../session/events.js';
import { offenderName } from '../session/report-build.js';
import { normalizePcmId } from '../analysis/correlate.js';
import type { LoadSnapshot } from './load-snapshot.js';
import { describeLoad } from './load-snapshot.js';
import type { WatchedStream } from './running-streams.js';
import { streamLabel } from './running-streams.js';
import { toBundleV1Class } from '../analysis/bundle-class.js';

/** One kernel XRUN event as watch saw it: the stream it names, its owner, the load then. */
export interface WatchXrun {
  /** 0-based among the watch's kernel events. */
  index: number;
  /** ms since the watch started (when the event was read). */
  timeMs: number;
  pcm: string | null;
  /** Label of the watched stream it was attributed to (null: not a watched stream). */
  stream: string | null;
  owner: string | null;
  event: SessionKernelEvent;
  load: LoadSnapshot | null;
}

/** Per stream: xruns the kernel reported and underruns its counters showed. */
export interface StreamRank {
  label: string;
  pcm: string;
  owner: string | null;
  ownerPid: number | null;
  /** Kernel XRUN events naming this stream. */
  xruns: number;
  /** Status polls that showed the buffer ran empty (a lower bound: one per poll at most). */
  polledUnderruns: number;
  rateHz: number | null;
  periodFrames: number | null;
  bufferFrames: number | null;
  bufferMs: number | null;
  format: string | null;
  kernelReports: boolean;
}

/** An offender row of the live ranking. */
export interface WatchOffender {
  function: string | null;
  module: string | null;
  signature: string;
  count: number;
  share: number;
}

export interface WatchRanking {
  streams: StreamRank[];
  /** Kernel XRUN events on watched streams. */
  xruns: number;
  /** Kernel events naming streams we do not watch (or no stream at all). */
  otherEvents: number;
  offenders: WatchOffender[];
  classShares: { kernel: number; idle: number; user: number; none: number };
}

/** Attributes an event's PCM to a watched stream: by name, or the only one when the dump names none. */
export function attributeStream(
  pcm: string | null,
  streams: readonly WatchedStream[],
): WatchedStream | null {
  if (pcm === null) return streams.length === 1 ? streams[0]! : null;
  const id = normalizePcmId(pcm);
  return streams.find((s) => normalizePcmId(s.pcm) === id) ?? null;
}

/** Ranks what was seen so far. */
export function rankWatch(
  streams: readonly WatchedStream[],
  xruns: readonly WatchXrun[],
  polled: ReadonlyMap<string, number>,
): WatchRanking {
  const rows: StreamRank[] = streams.map((s) => {
    const label = streamLabel(s);
    return {
      label,
      pcm: s.pcm,
      owner: s.owner,
      ownerPid: s.ownerPid,
      xruns: xruns.filter((x) => x.stream === label && x.event.kind === 'xrun').length,
      polledUnderruns: polled.get(label) ?? 0,
      rateHz: s.hw.rateHz ?? null,
      periodFrames: s.hw.periodFrames ?? null,
      bufferFrames: s.hw.bufferFrames ?? null,
      bufferMs: s.bufferMs,
      format: s.hw.format ?? null,
      kernelReports: s.kernel.reports,
    };
  });
  rows.sort((a, b) => b.xruns - a.xruns || b.polledUnderruns - a.polledUnderruns);
  const mine = xruns.filter((x) => x.stream !== null);
  const counts = { kernel: 0, idle: 0, user: 0, none: 0 };
  const bySig = new Map<string, WatchOffender>();
  for (const x of mine) {
    const o = x.event.offender;
    counts[toBundleV1Class(o.class)]++;
    if (o.class !== 'kernel' || o.signature === null) continue;
    const row = bySig.get(o.signature) ?? {
      function: o.function,
      module: o.module,
      signature: o.signature,
      count: 0,
      share: 0,
    };
    row.count++;
    bySig.set(o.signature, row);
  }
  const kernelTotal = counts.kernel;
  const offenders = [...bySig.values()]
    .map((o) => ({ ...o, share: kernelTotal ? o.count / kernelTotal : 0 }))
    .sort((a, b) => b.count - a.count || a.signature.localeCompare(b.signature));
  const n = mine.length;
  return {
    streams: rows,
    xruns: mine.filter((x) => x.event.kind === 'xrun').length,
    otherEvents: xruns.length - n,
    offenders,
    classShares: {
      kernel: n ? counts.kernel / n : 0,
      idle: n ? counts.idle / n : 0,
      user: n ? counts.user / n : 0,
      none: n ? counts.none / n : 0,
    },
  };
}

const pct = (v: number): string => `${Math.round(v * 100)}%`;
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** `12.3s XRUN pcmC0D0p (aplay, pid 812): test_unlock [test_lockup] · load 1.20 · busiest: …`. */
export function renderXrunLine(x: WatchXrun): string {
  const o = x.event.offender;
  const what =
    o.class === 'kernel'
      ? offenderName(o)
      : o.class === 'idle'
        ? '(idle: the CPU was asleep)'
        : o.class === 'user'
          ? '(user space was running)'
          : '(no interrupted context in the dump)';
  const kind = x.event.kind === 'xrun' ? 'XRUN' : x.event.kind;
  return `${secs(x.timeMs)} ${kind} ${x.stream ?? x.pcm ?? '(no PCM named)'}: ${what} · ${describeLoad(x.load)}`;
}

/** The periodic ranking block: streams with owners and buffers, offenders, class shares. */
export function renderRankingText(r: WatchRanking, elapsedMs: number, topN = 5): string {
  const lines: string[] = [
    `-- ranking after ${secs(elapsedMs)}: ${r.xruns} kernel XRUN(s) on watched streams`,
  ];
  for (const s of r.streams) {
    const cfg =
      s.periodFrames !== null && s.bufferFrames !== null
        ? `period ${s.periodFrames} / buffer ${s.bufferFrames}${s.rateHz ? ` at ${s.rateHz} Hz` : ''}${s.bufferMs !== null ? ` (${s.bufferMs.toFixed(1)} ms)` : ''}`
        : 'configuration unknown';
    lines.push(
      `   ${s.label}: ${s.xruns} XRUN(s), ${s.polledUnderruns} underrun(s) seen in its counters; ${cfg}${s.kernelReports ? '' : '; the kernel does not report its underruns'}`,
    );
  }
  r.offenders.slice(0, topN).forEach((o, i) => {
    lines.push(`   ${i + 1}. ${offenderName(o)}  ${o.count} (${pct(o.share)})`);
  });
  if (r.xruns > 0) {
    const c = r.classShares;
    lines.push(
      `   interrupted: kernel ${pct(c.kernel)}, idle ${pct(c.idle)}, user ${pct(c.user)}, none ${pct(c.none)}`,
    );
  }
  if (r.otherEvents > 0)
    lines.push(`   ${r.otherEvents} event(s) on streams not watched (or naming no stream)`);
  return lines.join('\n') + '\n';
}
