// Public surface of the HTML reports: adapters from each command's data to a ReportView,
// the pure renderer, and the file writer the commands call for `--html FILE`.
export type {
  ReportView,
  RunView,
  FleetView,
  FleetRowView,
  EventView,
  PhaseView,
  OffenderView,
} from './report-view.js';
export { runViewFromBundle } from './from-bundle.js';
export { runViewFromSessionReport, type GrantedStream } from './from-session-report.js';
export { renderReportHtml } from './render-report.js';
export { writeHtmlReport } from './write-report.js';
