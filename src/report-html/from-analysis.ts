// AnalysisResult → RunView: what `analyze --html` shows for a kernel log. A log has no
// session clock, so there is no timeline, headroom or throughput: events and offenders.
// Built by a collector that sees each event once and keeps a bounded part of them (the
// listed events, a thinned sample of event times), so a log of millions of events makes
// a report of bounded size from bounded memory.
import { detectorOnlySentences } from '../analysis/detector-only-text.js';
import type { AnalysisResult, StreamedAnalysis, XrunEvent } from '../analysis/types.js';
import type { Frame } from '../kernel/frame.js';
import type { EventView, LogTimelineSample, RunView } from './report-view.js';
import { MAX_LISTED_EVENTS } from './sections.js';
import { breakdownView } from './breakdown-section.js';
import type { XrunBreakdown } from '../recorder/breakdown-types.js';

/** A frame as the report prints it: "function [module]" (`?` for unreliable stack words). */
export function frameText(f: Frame): string {
  return `${f.reliable ? '' : '? '}${f.function}${f.module ? ` [${f.module}]` : ''}`;
}

/** Event times kept for the timeline chart: enough to draw, few enough to stay small. */
export const MAX_TIMELINE_SAMPLES = 2048;

export interface AnalysisViewCollector {
  add(ev: XrunEvent): void;
  /** The run view of everything added, with the analysis' ranking and counts. */
  runView(r: StreamedAnalysis, inputs: readonly string[]): RunView;
}

function eventView(e: XrunEvent): EventView {
  return {
    kind: e.kind,
    pcm: e.pcm,
    kernelTime: e.time ?? null,
    sessionMs: null,
    line: e.line,
    source: e.source ?? null,
    offenderFrame: e.offenderIndex ?? null,
    phase: null,
    offenderClass: e.offender.class,
    offenderFunction: e.offender.function,
    offenderModule: e.offender.module,
    signature: e.offender.signature,
    frames: e.frames.map(frameText),
  };
}

/**
 * Collects what the HTML report of an analysis needs, one event at a time: the first
 * `maxListed` events in full, and every `every`-th event time (doubling `every` whenever
 * `maxTimes` are held, so the kept times stay evenly spread over the whole log).
 */
export function createAnalysisViewCollector(
  maxListed: number = MAX_LISTED_EVENTS,
  maxTimes: number = MAX_TIMELINE_SAMPLES,
): AnalysisViewCollector {
  const listed: EventView[] = [];
  const breakdowns: XrunBreakdown[] = [];
  const sources = new Set<string | undefined>();
  let timesS: number[] = [];
  let every = 1;
  let timed = 0;
  return {
    add(ev: XrunEvent): void {
      if (listed.length < maxListed) listed.push(eventView(ev));
      if (ev.breakdown) breakdowns.push(ev.breakdown);
      if (sources.size < 2) sources.add(ev.source);
      if (ev.time === undefined) return;
      if (timed % every === 0) {
        timesS.push(ev.time);
        if (timesS.length >= maxTimes) {
          timesS = timesS.filter((_, i) => i % 2 === 0);
          every *= 2;
        }
      }
      timed++;
    },
    runView(r: StreamedAnalysis, inputs: readonly string[]): RunView {
      const s = r.summary;
      const byKind = Object.entries(s.byKind)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      const logTimeline: LogTimelineSample = {
        timesS: [...timesS],
        every,
        timed,
        oneInput: sources.size <= 1,
      };
      return {
        label: inputs.length === 1 ? inputs[0]! : `${inputs.length} inputs`,
        facts: [
          ['input', inputs.join(', ') || 'standard input'],
          ['lines read', String(s.lines)],
          ['events', byKind || 'none'],
          ['distinct kernel offenders', String(s.offenders)],
          ['signature rules', s.rulesVersion],
        ],
        // Detector-only XRUNs (IRQ thread, softirq thread, process context): said instead of
        // a ranked victim, as in the text report.
        conclusion: detectorOnlySentences(s),
        suggestions: [],
        limitations: [],
        warnings: [...r.warnings],
        durationMs: null,
        phases: [],
        xrunsMs: [],
        periodUs: null,
        headroom: [],
        headroomCount: 0,
        headroomSamplesUs: [],
        bufferUs: null,
        phaseHeadroom: [],
        offenders: r.offenders.map((o) => ({
          function: o.function,
          module: o.module,
          signature: o.signature,
          count: o.count,
          share: o.share,
        })),
        classCounts: { ...s.byClass },
        events: listed,
        eventsTotal: s.events,
        logTimeline,
        ...(breakdowns.length > 0 ? { breakdown: breakdownView(breakdowns)! } : {}),
      };
    },
  };
}

/** Turns an analysis of kernel logs into the report's run view; `inputs` names the files. */
export function runViewFromAnalysis(result: AnalysisResult, inputs: readonly string[]): RunView {
  const c = createAnalysisViewCollector();
  for (const e of result.events) c.add(e);
  return c.runView(result, inputs);
}
