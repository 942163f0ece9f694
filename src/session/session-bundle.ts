// Turns a finished session into a bundle (format v2, src/bundle/schema.ts: with each event's
// detection and the flight recorder's breakdowns, src/bundle/carry-breakdown.ts) and writes the
// bundle folder: bundle.json.gz, events.ndjson (already written live), kernel.log and
// report.txt. Scrubbed unless the user said --no-scrub. The mapping is pure; writing is
// a thin shell over the bundle engineer's atomic writer.
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  Bundle,
  BundleEvent,
  BundleHost,
  BundleOffenderRank,
  CaptureBackend,
  KernelLogSource,
  LatencySummary,
} from '../bundle/index.js';
import { FORMAT_VERSION, scrubBundle, scrubText, writeBundle } from '../bundle/index.js';
import type { ScrubKnown } from '../bundle/index.js';
import {
  matchBreakdowns,
  toBundleBreakdown,
  toBundleDetection,
  toBundleRunBreakdown,
} from '../bundle/carry-breakdown.js';
import type { SessionReport } from './report-model.js';
import { EventLogWriter } from './event-log.js';
import { errorMessage, XrunhuntError } from '../errors.js';

/** The file names inside a bundle folder. */
export const BUNDLE_FILES = {
  bundle: 'bundle.json.gz',
  events: 'events.ndjson',
  kernelLog: 'kernel.log',
  report: 'report.txt',
} as const;

/** A playback histogram summary as the playback engine reports it (nulls when empty). */
export interface PlaybackHistogram {
  count: number;
  min: number | null;
  p50: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

export interface SessionBundleInput {
  report: SessionReport;
  host: BundleHost;
  machineId: string;
  toolVersion: string;
  createdAt: string;
  /** Frames per event, parallel to report.events ("func" / "func [module]", innermost first). */
  frames: string[][];
  channels: number;
  format: string;
  bufferFrames: number;
  rtPolicy: string;
  rtPriority: number | null;
  captureBackend: CaptureBackend;
  playbackMs: number;
  histograms: { headroomUs: PlaybackHistogram; writeUs: PlaybackHistogram } | null;
  rulesVersion: string;
  /** CLOCK_MONOTONIC minus the kernel log clock, ns (null/absent: not aligned), to attach breakdowns. */
  kernelOffsetNs?: number | null;
}

function latency(h: PlaybackHistogram): LatencySummary {
  return {
    min: h.min ?? 0,
    p50: h.p50 ?? 0,
    p99: h.p99 ?? 0,
    p999: h.p999 ?? 0,
    max: h.max ?? 0,
    count: h.count,
  };
}

/** Maps a finished session to a bundle document (pure, unscrubbed). */
export function sessionToBundle(i: SessionBundleInput): Bundle {
  const r = i.report;
  const explained = r.recorder?.breakdown;
  const matched = explained
    ? matchBreakdowns(r.events, explained.breakdowns, i.kernelOffsetNs ?? null)
    : r.events.map(() => null);
  const events: BundleEvent[] = r.events.map((e, k) => {
    const m = matched[k];
    return {
      kind: e.kind,
      pcm: e.pcm,
      time: e.time,
      phase: e.phase,
      offender: { ...e.offender },
      frames: i.frames[k] ?? e.frames,
      ...(e.detection ? { detection: toBundleDetection(e.detection) } : {}),
      ...(explained && m !== null && m !== undefined
        ? { breakdown: toBundleBreakdown(explained.breakdowns[m]!) }
        : {}),
    };
  });
  const offenders: BundleOffenderRank[] = r.offenders.map((o) => ({
    function: o.function,
    module: o.module,
    signature: o.signature,
    count: o.count,
    share: o.share,
  }));
  const source: KernelLogSource = r.kernelCapture.source;
  return {
    formatVersion: FORMAT_VERSION,
    tool: { name: 'xrunhunt', version: i.toolVersion },
    kind: 'session',
    createdAt: i.createdAt,
    machineId: i.machineId,
    scrubbed: false,
    host: i.host,
    params: {
      device: r.params.device,
      rateHz: r.params.rateHz,
      channels: i.channels,
      format: i.format,
      periodFrames: r.params.periodFrames,
      bufferFrames: i.bufferFrames,
      rtPolicy: i.rtPolicy,
      rtPriority: i.rtPriority,
      mask: r.kernelCapture.mask,
      phases: r.params.phasePlan,
      captureBackend: i.captureBackend,
    },
    durationMs: Math.round(r.durationMs),
    playbackMs: Math.round(i.playbackMs),
    phases: r.phases.map((p) => ({
      name: p.name,
      kind: p.kind,
      startMs: Math.round(p.startMs),
      endMs: Math.round(p.endMs),
      throughput: p.throughput,
      xruns: p.xruns,
    })),
    xruns: r.xruns.map((x) => ({
      timeMs: x.timeMs,
      monotonicNs: x.monotonicNs,
      durationMs: x.durationMs,
      phase: x.phase,
      kernelEventIndex: x.kernelEventIndex,
    })),
    kernelCapture: { source, lostMessages: r.kernelCapture.lostMessages },
    events,
    offenders,
    histograms: i.histograms
      ? { headroomUs: latency(i.histograms.headroomUs), writeUs: latency(i.histograms.writeUs) }
      : null,
    rulesVersion: i.rulesVersion,
    warnings: [...r.limitations, ...r.warnings],
    ...(explained ? { breakdown: toBundleRunBreakdown(explained, matched) } : {}),
  };
}

export interface WriteFolderInput {
  dir: string;
  bundle: Bundle;
  kernelLog: string;
  reportText: string;
  /** null = --no-scrub. */
  scrub: ScrubKnown | null;
}

/** Writes bundle.json.gz, kernel.log and report.txt into the folder; returns their paths. */
export async function writeBundleFolder(w: WriteFolderInput): Promise<{
  bundle: string;
  kernelLog: string;
  report: string;
}> {
  const paths = {
    bundle: join(w.dir, BUNDLE_FILES.bundle),
    kernelLog: join(w.dir, BUNDLE_FILES.kernelLog),
    report: join(w.dir, BUNDLE_FILES.report),
  };
  const clean = w.scrub ? scrubBundle(w.bundle, w.scrub) : w.bundle;
  await writeBundle(paths.bundle, clean);
  await writeFile(paths.kernelLog, w.scrub ? scrubText(w.kernelLog, w.scrub) : w.kernelLog);
  await writeFile(paths.report, w.scrub ? scrubText(w.reportText, w.scrub) : w.reportText);
  return paths;
}

/** Creates the bundle folder and its append-only event log (sessions and watch share it). */
export function openBundleEventLog(outDir: string): EventLogWriter {
  try {
    mkdirSync(outDir, { recursive: true });
    return new EventLogWriter(join(outDir, BUNDLE_FILES.events));
  } catch (err) {
    throw new XrunhuntError(
      'resource',
      `cannot create the bundle folder ${outDir}: ${errorMessage(err)}`,
      { hint: 'choose a writable folder with --out DIR' },
    );
  }
}
