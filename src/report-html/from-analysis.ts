// AnalysisResult → RunView: what `analyze --html` shows for a kernel log. A log has no
// session clock, so there is no timeline, headroom or throughput: events and offenders.
import type { AnalysisResult } from '../analysis/types.js';
import type { Frame } from '../kernel/frame.js';
import { countClasses } from './from-bundle.js';
import type { RunView } from './report-view.js';

/** A frame as the report prints it: "function [module]" (`?` for unreliable stack words). */
export function frameText(f: Frame): string {
  return `${f.reliable ? '' : '? '}${f.function}${f.module ? ` [${f.module}]` : ''}`;
}

/** Turns an analysis of kernel logs into the report's run view; `inputs` names the files. */
export function runViewFromAnalysis(result: AnalysisResult, inputs: readonly string[]): RunView {
  const s = result.summary;
  const byKind = Object.entries(s.byKind)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  return {
    label: inputs.length === 1 ? inputs[0]! : `${inputs.length} inputs`,
    facts: [
      ['input', inputs.join(', ') || 'standard input'],
      ['lines read', String(s.lines)],
      ['events', byKind || 'none'],
      ['distinct kernel offenders', String(s.offenders)],
      ['signature rules', s.rulesVersion],
    ],
    conclusion: [],
    suggestions: [],
    limitations: [],
    warnings: [...result.warnings],
    durationMs: null,
    phases: [],
    xrunsMs: [],
    periodUs: null,
    headroom: [],
    headroomCount: 0,
    headroomSamplesUs: [],
    bufferUs: null,
    phaseHeadroom: [],
    offenders: result.offenders.map((o) => ({
      function: o.function,
      module: o.module,
      signature: o.signature,
      count: o.count,
      share: o.share,
    })),
    classCounts: countClasses(result.events.map((e) => e.offender.class)),
    events: result.events.map((e) => ({
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
    })),
  };
}
