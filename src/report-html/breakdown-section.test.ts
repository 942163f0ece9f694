// The HTML report's breakdown section, from the format 2 fixture (real recorder breakdowns of
// lab captures): the classes and blockers tables carry the run summary's numbers, each XRUN is
// the session's own text, names from the machine are escaped, and format 1 has no section.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureJson } from '../bundle/test-fixtures.js';
import { validateBundle } from '../bundle/validate.js';
import { breakdownLines } from '../recorder/breakdown-text.js';
import { runViewFromBundle } from './from-bundle.js';
import { renderReportHtml } from './render-report.js';

const html = (name: string, mutate?: (b: ReturnType<typeof validateBundle>) => void): string => {
  const b = validateBundle(fixtureJson(name));
  mutate?.(b);
  return renderReportHtml(
    {
      kind: 'session',
      title: 'T',
      generatedAt: '2026-12-01T00:00:00Z',
      run: runViewFromBundle(b, 'x'),
    },
    '9.9.9',
  );
};

test('a format 2 bundle report has the breakdown section: classes, blockers, each XRUN', () => {
  const b = validateBundle(fixtureJson('../bundles-format-2/session-v2-breakdown.json'));
  const page = html('../bundles-format-2/session-v2-breakdown.json');
  assert.match(page, /<h2 id="breakdown">Latency breakdown \(flight recorder\)<\/h2>/);
  assert.match(page, /4 XRUN breakdowns, 4 complete/);
  const classes = page.split('data-table="breakdown-classes"')[1]!.split('</table>')[0]!;
  assert.match(classes, /<td>irq-latency<\/td><td class="num">2<\/td>/);
  assert.match(classes, /<td>blocked-by-task<\/td><td class="num">2<\/td>/);
  const blockers = page.split('data-table="breakdown-blockers"')[1]!.split('</table>')[0]!;
  assert.equal(blockers.split('<tr>').length - 2, b.breakdown!.blockers.length);
  // Three events' breakdowns and the unmatched one, each as the session prints it.
  assert.equal(page.split('<pre class="breakdown"').length - 1, 4);
  const first = breakdownLines(b.events[1]!.breakdown!)[0]!;
  assert.ok(page.includes(first.replace(/&/g, '&amp;').replace(/</g, '&lt;')), first);
});

test('names from the traced machine are escaped; a format 1 bundle has no breakdown section', () => {
  const page = html('../bundles-format-2/session-v2-breakdown.json', (b) => {
    b.events[1]!.breakdown!.parts[0]!.name = '<img src=x onerror=alert(1)>';
    b.breakdown!.blockers[0]!.name = '<script>alert(2)</script>';
  });
  assert.equal(page.includes('<img src=x'), false);
  assert.equal(page.includes('<script>alert(2)'), false);
  assert.match(page, /&lt;script&gt;alert\(2\)/);
  assert.doesNotMatch(html('session-ext4-writeback.json'), /id="breakdown"/);
});
