// `analyze --html` of a log with very many events: the report is built from a bounded part
// of them (listed events, a thinned time sample) and still says the totals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankOffenders, summarize } from '../analysis/rank.js';
import type { AnalysisResult, XrunEvent } from '../analysis/types.js';
import { createAnalysisViewCollector, runViewFromAnalysis } from './from-analysis.js';
import { renderReportHtml } from './render-report.js';
import { MAX_LISTED_EVENTS } from './sections.js';

function events(n: number): XrunEvent[] {
  const out: XrunEvent[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      kind: 'xrun',
      pcm: 'pcmC0D0p:0',
      line: i + 1,
      time: 10 + i * 0.001,
      header: 'snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0',
      offender: {
        class: 'kernel',
        function: 'test_unlock',
        module: 'test_lockup',
        signature: 'test_unlock',
      },
      frames: [
        { function: 'test_unlock', rawSymbol: 'test_unlock', reliable: true, context: 'task' },
      ],
      offenderIndex: 0,
    } as XrunEvent);
  }
  return out;
}

function result(evs: XrunEvent[]): AnalysisResult {
  const offenders = rankOffenders(evs);
  return { events: evs, offenders, summary: summarize(evs, offenders, evs.length), warnings: [] };
}

test('200 000 events: the timeline is drawn from a thinned sample, the list is capped, totals stay', () => {
  const r = result(events(200_000));
  const html = renderReportHtml(
    { kind: 'analyze', title: 'T', generatedAt: 'now', run: runViewFromAnalysis(r, ['big.log']) },
    '1',
  );
  assert.match(html, /Kernel events \(200000\)/);
  assert.equal(html.split('<details class="event"').length - 1, MAX_LISTED_EVENTS);
  assert.match(html, new RegExp(`${200_000 - MAX_LISTED_EVENTS} more events not listed`));
  const points = Number(/data-chart="timeline" data-points="(\d+)"/.exec(html)?.[1]);
  assert.ok(points > 1000 && points <= 2048, `timeline points: ${points}`);
  assert.match(html, /one point per 128 events/);
  // The last point stands for the last event: the curve ends at the total.
  assert.match(html, /event #200000 at/);
  assert.ok(html.length < 3_000_000, `report size ${html.length}`);
});

test('the collector thins times evenly and keeps exact counts for small logs', () => {
  const c = createAnalysisViewCollector(3, 8);
  for (const e of events(20)) c.add(e);
  const view = c.runView(result(events(20)), ['x.log']);
  assert.equal(view.events.length, 3);
  assert.equal(view.eventsTotal, 20);
  // 20 times, at most 8 kept: every 4th (0, 4, 8, 12, 16).
  assert.deepEqual(view.logTimeline, {
    timesS: [0, 4, 8, 12, 16].map((i) => 10 + i * 0.001),
    every: 4,
    timed: 20,
    oneInput: true,
  });
  const small = renderReportHtml(
    {
      kind: 'analyze',
      title: 'T',
      generatedAt: 'now',
      run: runViewFromAnalysis(result(events(5)), ['s.log']),
    },
    '1',
  );
  assert.match(small, /data-chart="timeline" data-points="5"/);
  assert.doesNotMatch(small, /one point per/);
});
