// SessionReport → RunView: what `session --html` shows (the same data `session --json` prints).
import type { SessionReport } from '../session/report-model.js';
import { formatDuration } from '../units.js';
import { countClasses, framesMs, recordedEventView } from './from-bundle.js';
import type { RunView } from './report-view.js';
import { breakdownView, type BreakdownView } from './breakdown-section.js';

/** Optional stream facts the report itself does not carry (granted by the device). */
export interface GrantedStream {
  periodFrames: number;
  bufferFrames: number;
  rateHz: number;
  policy: string;
}

/** Turns a finished session's report into the report's run view (samples: per-second headroom minima). */
export function runViewFromSessionReport(
  report: SessionReport,
  granted: GrantedStream | null = null,
  samplesUs: readonly number[] = [],
): RunView {
  const p = report.params;
  const rateHz = granted?.rateHz ?? p.rateHz;
  const periodFrames = granted?.periodFrames ?? p.periodFrames;
  const bufferFrames = granted?.bufferFrames ?? p.periodFrames * p.periods;
  // Sessions record headroom per phase; percentiles cannot be merged across phases, so
  // the report shows them per phase (and only the minimum, which does merge, overall).
  const measured = report.phases.filter((ph) => ph.headroom && ph.headroom.count > 0);
  const count = measured.reduce((n, ph) => n + ph.headroom!.count, 0);
  const facts: [string, string][] = [
    ['kernel', `${report.host.kernelRelease} (${report.host.arch})`],
    ['preemption', report.host.preempt],
    ['threadirqs', report.host.threadirqs ? 'yes' : 'no'],
    ['device', p.device],
    ['stream', `${rateHz} Hz`],
    [
      'period / buffer',
      `${periodFrames} / ${bufferFrames} frames (${framesMs(periodFrames, rateHz)} / ${framesMs(bufferFrames, rateHz)})`,
    ],
  ];
  if (granted) facts.push(['scheduling', granted.policy]);
  facts.push(
    ['phases', p.phasePlan],
    [
      'kernel log',
      `${report.kernelCapture.source}, ${report.kernelCapture.lostMessages} lost messages` +
        (report.kernelCapture.pcm
          ? `, xrun_debug ${report.kernelCapture.mask ?? '?'} on ${report.kernelCapture.pcm}`
          : ''),
    ],
    ['clock alignment', report.correlation.clockAlignment],
    [
      'matched',
      `${report.correlation.matched} of ${report.xruns.length} xruns have a kernel XRUN dump`,
    ],
    ['duration', formatDuration(report.durationMs)],
  );
  if (report.bundle) facts.push(['bundle', report.bundle]);
  return {
    label: `${report.host.kernelRelease} ${report.host.preempt}`,
    facts,
    conclusion: [...report.conclusion],
    suggestions: [...report.suggestions],
    limitations: [...report.limitations],
    warnings: [...report.warnings],
    durationMs: report.durationMs,
    phases: report.phases.map((ph) => ({
      name: ph.name,
      kind: ph.kind,
      startMs: ph.startMs,
      endMs: ph.endMs,
      xruns: ph.xruns,
      mbPerSec: ph.throughput ? ph.throughput.mbPerSec : null,
      opsPerSec: ph.throughput?.opsPerSec ?? null,
    })),
    xrunsMs: report.xruns.map((x) => x.timeMs),
    periodUs: (periodFrames / rateHz) * 1e6,
    headroom:
      count > 0
        ? [{ label: 'min', us: Math.min(...measured.map((ph) => ph.headroom!.minUs)) }]
        : [],
    headroomCount: count,
    headroomSamplesUs: [...samplesUs],
    bufferUs: (bufferFrames / rateHz) * 1e6,
    phaseHeadroom: measured.map((ph) => ({
      phase: ph.name,
      minUs: ph.headroom!.minUs,
      p50Us: ph.headroom!.p50Us,
      p99Us: ph.headroom!.p99Us,
    })),
    offenders: report.offenders.map((o) => ({
      function: o.function,
      module: o.module,
      signature: o.signature,
      count: o.count,
      share: o.share,
    })),
    classCounts: countClasses(report.events.map((e) => e.offender.class)),
    events: report.events.map((e) => recordedEventView(e, e.sessionMs)),
    ...breakdownOf(report),
  };
}

// The recorder's breakdowns of the session, when it ran (--recorder) and explained any.
function breakdownOf(report: SessionReport): { breakdown?: BreakdownView } {
  const x = report.recorder?.breakdown;
  const v = x ? breakdownView(x.breakdowns, x.summary) : null;
  return v ? { breakdown: v } : {};
}
