// ReportView → one self-contained HTML document. Pure: values in, a string out.
import { el, text } from './markup.js';
import { renderPage } from './page.js';
import type { ReportView, RunView } from './report-view.js';
import { renderFleet } from './fleet-section.js';
import {
  headroomChart,
  logTimelineChart,
  offenderChart,
  throughputChart,
  timelineChart,
} from './run-charts.js';
import { renderConclusion, renderEvents, renderFacts } from './sections.js';
import { renderTry } from './try-section.js';
import { renderBreakdown } from './breakdown-section.js';

function classLine(run: RunView): string {
  const c = run.classCounts;
  const total = Object.values(c).reduce((a, b) => a + b, 0);
  if (total === 0) return '';
  const parts = Object.entries(c)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  return el(
    'p',
    { class: 'sub' },
    text(`${total} kernel events by interrupted context: ${parts.join(', ')}.`),
  );
}

function runBody(run: RunView): string[] {
  // A log analysed after the fact has no session clock: no timeline, headroom or load.
  const played = run.durationMs !== null;
  return [
    renderConclusion(run),
    el('h2', {}, text('Setup')),
    renderFacts([run]),
    el('h2', {}, text('Charts')),
    played ? timelineChart([run]) : logTimelineChart(run),
    played ? headroomChart([run]) : '',
    offenderChart([run]),
    classLine(run),
    played ? throughputChart([run]) : '',
    ...(run.breakdown ? renderBreakdown(run.breakdown) : []),
    el('h2', {}, text(`Kernel events (${run.eventsTotal ?? run.events.length})`)),
    renderEvents(run, true),
  ];
}

function compareBody(a: RunView, b: RunView): string[] {
  const summary = (r: RunView, key: string) =>
    el(
      'div',
      {},
      el('h3', {}, text(`${key}: ${r.label}`)),
      el(
        'p',
        {},
        text(
          `${r.xrunsMs.length} xruns, ${r.events.length} kernel events` +
            (r.durationMs !== null ? ` in ${(r.durationMs / 1000).toFixed(1)} s` : ''),
        ),
      ),
      renderConclusion(r),
    );
  return [
    el('div', { class: 'runs' }, summary(a, 'A'), summary(b, 'B')),
    el('h2', {}, text('Setup')),
    renderFacts([a, b]),
    el('h2', {}, text('Charts (A and B overlaid)')),
    timelineChart([a, b]),
    headroomChart([a, b]),
    offenderChart([a, b]),
    throughputChart([a, b]),
    el('h2', {}, text(`Kernel events of A (${a.events.length})`)),
    renderEvents(a, true),
    el('h2', {}, text(`Kernel events of B (${b.events.length})`)),
    renderEvents(b, false),
  ];
}

/** Renders the whole report; `toolVersion` goes in the footer. */
export function renderReportHtml(view: ReportView, toolVersion: string): string {
  const sub = el(
    'p',
    { class: 'sub' },
    text(`Generated ${view.generatedAt} by xrunhunt ${toolVersion}`),
  );
  let body: string[];
  switch (view.kind) {
    case 'session':
    case 'analyze':
      body = runBody(view.run);
      break;
    case 'compare':
      body = compareBody(view.runs[0], view.runs[1]);
      break;
    case 'aggregate':
      body = renderFleet(view.fleet);
      break;
    case 'try':
      body = renderTry(view.try);
      break;
  }
  return renderPage(
    view.title,
    [el('h1', {}, text(view.title)), sub, ...body],
    `xrunhunt ${toolVersion} · self-contained report: no network access, no external files.`,
  );
}
