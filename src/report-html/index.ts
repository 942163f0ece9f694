// Public surface of the HTML reports: one writer per command (`--html FILE`), the adapters
// from each command's data to a ReportView, and the pure renderer.
export type {
  ReportView,
  RunView,
  FleetView,
  FleetGroupView,
  FleetRowView,
  EventView,
  PhaseView,
  OffenderView,
} from './report-view.js';
export {
  writeSessionHtml,
  writeAnalyzeHtml,
  writeAnalyzeHtmlView,
  writeCompareHtml,
  writeAggregateHtml,
  grantedStream,
  headroomSamples,
  type CompareSide,
  type HtmlReportMeta,
} from './command-reports.js';
export { runViewFromBundle } from './from-bundle.js';
export { runViewFromSessionReport, type GrantedStream } from './from-session-report.js';
export { runViewFromAnalysis, createAnalysisViewCollector } from './from-analysis.js';
export { fleetViewFromRanking } from './from-fleet.js';
export { renderReportHtml } from './render-report.js';
export { writeHtmlReport, checkReportTarget } from './write-report.js';
