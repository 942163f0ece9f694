// The try HTML report: the side-by-side chart has one A and one B bar per phase, the table
// the exact ratio and interval, and the verdict is on the page.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { renderReportHtml } from '../report-html/render-report.js';
import { tryReportView } from './try-html.js';
import { summarizeTry, type TryRound } from './try-result.js';

test('a try report shows A and B side by side with the ratio table and the verdict', () => {
  const sessions: TryRound[] = [1, 2, 3].flatMap((r) =>
    (['A', 'B'] as const).map((arm) => ({
      round: r,
      arm,
      durationMs: 60_000,
      phases: [{ name: 'write', xruns: arm === 'A' ? 20 : 2, durationMs: 60_000 }],
      offenders: [],
    })),
  );
  const result = summarizeTry(
    [
      {
        spec: 'vm.dirty_bytes=67108864',
        what: 'vm.dirty_bytes',
        from: '20 %',
        to: '64 MiB',
        writes: [],
      },
    ],
    sessions,
  );
  const html = renderReportHtml(tryReportView(result, new Date(0)), 'test');
  const chart = /<figure[^>]*data-chart="try-rates"[^>]*>[\s\S]*?<\/figure>/.exec(html)?.[0] ?? '';
  assert.match(chart, /data-points="4"/, 'A and B bars for write and all');
  assert.match(
    html,
    /<tr data-row="write"><td>write<\/td><td>60<\/td><td>20\.00<\/td><td>6<\/td><td>2\.00<\/td><td>0\.10<\/td>/,
  );
  assert.match(html, /significant<\/td>/);
  assert.match(html, /cut xruns under write from 20\/min to 2\.0\/min/);
  assert.match(html, /vm\.dirty_bytes: 20 % → 64 MiB/);
});
