// Bundle → RunView: what `compare --html` (and any report drawn from a saved bundle) shows.
import type { Bundle } from '../bundle/schema.js';
import { formatBytes, formatDuration } from '../units.js';
import type { EventView, PhaseView, RunView } from './report-view.js';
import { offenderFrameIndex } from './sections.js';
import { breakdownView, type BreakdownView } from './breakdown-section.js';

/** Counts events per offender class, so the report can say "3 kernel, 1 idle". */
export function countClasses(classes: readonly string[]): Record<string, number> {
  const out: Record<string, number> = { kernel: 0, idle: 0, user: 0, none: 0 };
  for (const c of classes) out[c] = (out[c] ?? 0) + 1;
  return out;
}

/**
 * Turns a bundle into the report's run view; `label` names the run ("A: before.json");
 * `samplesUs` are per-second headroom minima from the session's events.ndjson, when at hand.
 */
export function runViewFromBundle(
  bundle: Bundle,
  label: string,
  samplesUs: readonly number[] | null = null,
): RunView {
  const p = bundle.params;
  // Kernel events carry the printk clock; the matched userspace xrun gives their session time.
  const sessionMsByEvent = new Map<number, number>();
  for (const x of bundle.xruns) {
    if (x.kernelEventIndex !== null) sessionMsByEvent.set(x.kernelEventIndex, x.timeMs);
  }
  const events: EventView[] = bundle.events.map((e, i) =>
    recordedEventView(e, sessionMsByEvent.get(i) ?? null),
  );
  const phases: PhaseView[] = bundle.phases.map((ph) => ({
    name: ph.name,
    kind: ph.kind,
    startMs: ph.startMs,
    endMs: ph.endMs,
    xruns: ph.xruns,
    mbPerSec: ph.throughput ? ph.throughput.mbPerSec : null,
    opsPerSec: ph.throughput?.opsPerSec ?? null,
  }));
  const h = bundle.histograms?.headroomUs;
  const facts: [string, string][] = [
    ['kernel', `${bundle.host.kernelRelease} (${bundle.host.arch})`],
    ['preemption', bundle.host.preempt],
    ['HZ', bundle.host.hz === null ? 'unknown' : String(bundle.host.hz)],
    ['threadirqs', bundle.host.threadirqs ? 'yes' : 'no'],
    [
      'cards',
      bundle.host.cards.map((c) => `${c.index}: ${c.name} (${c.driver})`).join(', ') || 'none',
    ],
    ['CPUs / memory', `${bundle.host.cpus} / ${formatBytes(bundle.host.memBytes)}`],
  ];
  if (p) {
    facts.push(
      ['device', p.device],
      ['stream', `${p.rateHz} Hz, ${p.channels} ch, ${p.format}`],
      [
        'period / buffer',
        `${p.periodFrames} / ${p.bufferFrames} frames (${framesMs(p.periodFrames, p.rateHz)} / ${framesMs(p.bufferFrames, p.rateHz)})`,
      ],
      ['scheduling', p.rtPriority === null ? p.rtPolicy : `${p.rtPolicy} ${p.rtPriority}`],
      ['xrun_debug mask', p.mask === null ? 'unavailable' : String(p.mask)],
      ['phases', p.phases],
    );
  }
  facts.push(
    [
      'kernel log',
      `${bundle.kernelCapture.source}, ${bundle.kernelCapture.lostMessages} lost messages`,
    ],
    ['duration', formatDuration(bundle.durationMs)],
    ['bundle', `format ${bundle.formatVersion}, ${bundle.kind}, ${bundle.createdAt}`],
  );
  return {
    label,
    facts,
    conclusion: [],
    suggestions: [],
    limitations: [],
    warnings: [...bundle.warnings],
    durationMs: bundle.durationMs,
    phases,
    xrunsMs: bundle.xruns.map((x) => x.timeMs),
    periodUs: p ? (p.periodFrames / p.rateHz) * 1e6 : null,
    headroom: h
      ? [
          { label: 'min', us: h.min },
          { label: 'p50', us: h.p50 },
          { label: 'p99', us: h.p99 },
          { label: 'p99.9', us: h.p999 },
          { label: 'max', us: h.max },
        ]
      : [],
    headroomCount: h?.count ?? 0,
    headroomSamplesUs: samplesUs ? [...samplesUs] : [],
    bufferUs: p ? (p.bufferFrames / p.rateHz) * 1e6 : null,
    phaseHeadroom: [],
    offenders: bundle.offenders.map((o) => ({ ...o })),
    classCounts: countClasses(bundle.events.map((e) => e.offender.class)),
    events,
    ...bundleBreakdown(bundle),
  };
}

/** Frames as milliseconds at a rate ("1.33 ms"). */
export function framesMs(frames: number, rateHz: number): string {
  return `${Number(((frames / rateHz) * 1000).toFixed(2))} ms`;
}

/** A kernel event as bundles and session reports record it (plain data, frames as text). */
export type RecordedEvent = Pick<
  Bundle['events'][number],
  'kind' | 'pcm' | 'time' | 'phase' | 'offender' | 'frames'
>;

/** The page's view of one recorded kernel event (from a bundle or a live session report). */
export function recordedEventView(e: RecordedEvent, sessionMs: number | null): EventView {
  return {
    kind: e.kind,
    pcm: e.pcm,
    kernelTime: e.time,
    sessionMs,
    line: null,
    source: null,
    offenderFrame:
      e.offender.class === 'kernel' ? offenderFrameIndex(e.frames, e.offender.function) : null,
    phase: e.phase,
    offenderClass: e.offender.class,
    offenderFunction: e.offender.function,
    offenderModule: e.offender.module,
    signature: e.offender.signature,
    frames: [...e.frames],
  };
}

// A format 2 bundle's breakdowns: its events' and the unmatched ones, with the run's summary.
function bundleBreakdown(bundle: Bundle): { breakdown?: BreakdownView } {
  const run = bundle.breakdown;
  const list = [
    ...bundle.events.flatMap((e) => (e.breakdown ? [e.breakdown] : [])),
    ...(run?.unmatched ?? []),
  ];
  const v = breakdownView(
    list,
    run
      ? {
          xruns: run.xruns,
          complete: run.complete,
          completeShare: run.completeShare,
          byClass: run.byClass,
          byShape: run.byShape,
          totalLatenessMs: run.totalLatenessMs,
          meanLatenessMs: run.meanLatenessMs,
          blockers: run.blockers,
        }
      : undefined,
  );
  return v ? { breakdown: v } : {};
}
