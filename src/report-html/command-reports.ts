// One call per command for `--html FILE`: build the view from what the command already has,
// render, write. Keeps the commands' edits to a line or two.
import { toolVersion } from '../tool-version.js';
import type { AnalysisResult } from '../analysis/types.js';
import type { Bundle } from '../bundle/schema.js';
import type { FleetRanking } from '../bundle/store.js';
import type { SessionEvent } from '../session/events.js';
import type { SessionReport } from '../session/report-model.js';
import { runViewFromAnalysis } from './from-analysis.js';
import type { RunView } from './report-view.js';
import { runViewFromBundle } from './from-bundle.js';
import { fleetViewFromRanking } from './from-fleet.js';
import { runViewFromSessionReport, type GrantedStream } from './from-session-report.js';
import { writeHtmlReport } from './write-report.js';

/** What every report needs besides its data (defaults: this package's version, now). */
export interface HtmlReportMeta {
  toolVersion?: string;
  /** When the report was made (its "Generated" line). */
  now?: Date;
}

/** The stream the device actually granted, from the session's events. */
export function grantedStream(history: readonly SessionEvent[]): GrantedStream | null {
  const e = history.find(
    (x): x is Extract<SessionEvent, { type: 'playback-started' }> => x.type === 'playback-started',
  );
  return e ? { ...e.granted, policy: e.policy } : null;
}

/** Each second's smallest headroom, from the session's 'stats' events (µs). */
export function headroomSamples(history: readonly SessionEvent[]): number[] {
  const out: number[] = [];
  for (const e of history) {
    if (e.type === 'stats' && typeof e.intervalHeadroomUs === 'number')
      out.push(e.intervalHeadroomUs);
  }
  return out;
}

/** `session --html FILE`: the finished session's report. */
export async function writeSessionHtml(
  path: string,
  report: SessionReport,
  history: readonly SessionEvent[],
  meta: HtmlReportMeta = {},
): Promise<number> {
  return writeHtmlReport(
    path,
    {
      kind: 'session',
      title: `xrunhunt session: ${report.params.device} on ${report.host.kernelRelease}`,
      generatedAt: (meta.now ?? new Date()).toISOString(),
      run: runViewFromSessionReport(report, grantedStream(history), headroomSamples(history)),
    },
    meta.toolVersion ?? toolVersion(),
  );
}

/** `analyze --html FILE` from a finished analysis held whole (library callers). */
export async function writeAnalyzeHtml(
  path: string,
  result: AnalysisResult,
  inputs: readonly string[],
  meta: HtmlReportMeta = {},
): Promise<number> {
  return writeAnalyzeHtmlView(path, runViewFromAnalysis(result, inputs), inputs, meta);
}

/** `analyze --html FILE` from a view built while the logs streamed (createAnalysisViewCollector). */
export async function writeAnalyzeHtmlView(
  path: string,
  run: RunView,
  inputs: readonly string[],
  meta: HtmlReportMeta = {},
): Promise<number> {
  return writeHtmlReport(
    path,
    {
      kind: 'analyze',
      title: `xrunhunt analysis: ${inputs.length === 1 ? inputs[0] : `${inputs.length} logs`}`,
      generatedAt: (meta.now ?? new Date()).toISOString(),
      run,
    },
    meta.toolVersion ?? toolVersion(),
  );
}

/** One side of a comparison: its bundle, its name, and its per-second headroom minima if known. */
export interface CompareSide {
  bundle: Bundle;
  label: string;
  samplesUs?: readonly number[] | null;
}

/** `compare A B --html FILE`: two bundles overlaid. */
export async function writeCompareHtml(
  path: string,
  a: CompareSide,
  b: CompareSide,
  meta: HtmlReportMeta = {},
): Promise<number> {
  return writeHtmlReport(
    path,
    {
      kind: 'compare',
      title: `xrunhunt compare: ${a.label} vs ${b.label}`,
      generatedAt: (meta.now ?? new Date()).toISOString(),
      runs: [
        runViewFromBundle(a.bundle, a.label, a.samplesUs ?? null),
        runViewFromBundle(b.bundle, b.label, b.samplesUs ?? null),
      ],
    },
    meta.toolVersion ?? toolVersion(),
  );
}

/** `aggregate --html FILE`: the fleet ranking. */
export async function writeAggregateHtml(
  path: string,
  ranking: FleetRanking,
  facts: [string, string][],
  meta: HtmlReportMeta = {},
): Promise<number> {
  return writeHtmlReport(
    path,
    {
      kind: 'aggregate',
      title: 'xrunhunt fleet ranking',
      generatedAt: (meta.now ?? new Date()).toISOString(),
      fleet: fleetViewFromRanking(ranking, facts),
    },
    meta.toolVersion ?? toolVersion(),
  );
}
