// Whole documents from the project's bundle fixtures, and from a hostile bundle: kernel
// logs are untrusted, so no input text may become markup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { Bundle } from '../bundle/schema.js';
import { runViewFromBundle } from './from-bundle.js';
import { renderReportHtml } from './render-report.js';

const fixture = (name: string): Bundle => {
  const bytes = readFileSync(new URL(`../../test/fixtures/bundles/${name}`, import.meta.url));
  return JSON.parse((name.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8')) as Bundle;
};
const ext4 = fixture('session-ext4-writeback.json');
const lab = fixture('session-lab-test-lockup.json.gz');

test('a session report has every chart, every event collapsible, and the offender marked', () => {
  const html = renderReportHtml(
    {
      kind: 'session',
      title: 'T',
      generatedAt: '2026-11-29T20:00:00Z',
      run: runViewFromBundle(ext4, 'ext4'),
    },
    '9.9.9',
  );
  for (const id of ['timeline', 'headroom', 'offenders', 'throughput', 'throughput-ops']) {
    assert.match(html, new RegExp(`data-chart="${id}"`), id);
  }
  assert.equal(html.split('<details class="event"').length - 1, ext4.events.length);
  // 3 ext4 events with a kernel offender, each frame marked once.
  assert.equal(html.split('<mark>__filemap_add_folio</mark>').length - 1, 3);
  // Timeline: 5 xruns + 4 kernel events matched to xruns.
  assert.match(html, /data-chart="timeline" data-points="9"/);
  assert.match(html, /9\.9\.9/);
});

test('the page is offline: a CSP that forbids every fetch, no external URL anywhere', () => {
  const html = renderReportHtml(
    {
      kind: 'compare',
      title: 'T',
      generatedAt: 'now',
      runs: [runViewFromBundle(ext4, 'A'), runViewFromBundle(lab, 'B')],
    },
    '1',
  );
  assert.match(html, /Content-Security-Policy" content="default-src &#39;none&#39;;/);
  const urls = html.match(/\b(?:src|href)=/g) ?? [];
  assert.deepEqual(urls, []);
  const external = (html.match(/https?:\/\/[^"' )]+/g) ?? []).filter(
    (u) => u !== 'http://www.w3.org/2000/svg',
  );
  assert.deepEqual(external, []);
});

test('hostile text from a bundle stays text', () => {
  const evil = structuredClone(ext4);
  const payload = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">"'&`;
  evil.events[1]!.frames[12] = payload;
  evil.events[1]!.offender.function = payload;
  evil.events[1]!.offender.signature = payload;
  evil.offenders[0]!.function = payload;
  evil.offenders[0]!.signature = payload;
  evil.params!.device = payload;
  evil.warnings.push(payload);
  evil.phases[1]!.name = payload;
  const html = renderReportHtml(
    {
      kind: 'session',
      title: payload,
      generatedAt: payload,
      run: runViewFromBundle(evil, payload),
    },
    payload,
  );
  assert.equal(html.split('<script>').length - 1, 1, 'only the report’s own script');
  assert.doesNotMatch(html, /<img/);
  assert.doesNotMatch(html, /onerror="/);
  assert.match(html, /&lt;script&gt;window\.pwned=1&lt;\/script&gt;/);
});

test('an analysis-only run (no session clock): events over the kernel clock, no headroom or throughput', () => {
  const run = runViewFromBundle(ext4, 'log');
  const html = renderReportHtml(
    { kind: 'analyze', title: 'T', generatedAt: 'now', run: { ...run, durationMs: null } },
    '1',
  );
  // The 4 events carry kernel timestamps: a timeline of them, nothing session-only.
  assert.match(html, /data-chart="timeline" data-points="4"/);
  assert.match(
    html,
    /XRUN events over the kernel clock \(seconds after the first, at 1234\.501 s\)/,
  );
  assert.doesNotMatch(html, /data-chart="headroom/);
  assert.doesNotMatch(html, /data-chart="throughput/);
  assert.match(html, /data-chart="offenders"/);
  // Events from two inputs have no common clock: no timeline.
  const mixed = {
    ...run,
    durationMs: null,
    events: run.events.map((e, i) => ({ ...e, source: i % 2 ? 'a.log' : 'b.log' })),
  };
  assert.doesNotMatch(
    renderReportHtml({ kind: 'analyze', title: 'T', generatedAt: 'now', run: mixed }, '1'),
    /data-chart="timeline"/,
  );
});

test('aggregate: one chart and table per group, rows in ranking order', () => {
  const html = renderReportHtml(
    {
      kind: 'aggregate',
      title: 'Fleet',
      generatedAt: 'now',
      fleet: {
        by: 'kernel',
        facts: [['store', 'fleet.db']],
        warnings: [],
        groups: ['6.1.0', '6.12.0'].map((key, gi) => ({
          key,
          bundles: 3,
          machines: 2,
          playbackHours: 1.5,
          classes: { kernel: 4, idle: 1, user: 0, none: 0 },
          more: 0,
          rows: [
            {
              signature: `a${gi}`,
              function: 'f_a',
              module: null,
              incidents: 3,
              machines: 2,
              share: 0.75,
              kernels: [key],
              preempt: ['full (3)'],
              drivers: ['snd_hda_intel (3)'],
              loads: ['write (3)'],
              perMachineHour: 2,
              exampleStack: ['f_a', 'g'],
            },
            {
              signature: `b${gi}`,
              function: 'f_b',
              module: 'ext4',
              incidents: 1,
              machines: 1,
              share: 0.25,
              kernels: [key],
              preempt: [],
              drivers: [],
              loads: [],
              perMachineHour: null,
              exampleStack: [],
            },
          ],
        })),
      },
    },
    '1',
  );
  assert.match(html, /data-chart="fleet" data-points="4"/);
  assert.match(html, /data-chart="fleet-1" data-points="4"/);
  assert.match(html, /kernel: 6\.12\.0/);
  assert.ok(html.indexOf('f_a') < html.indexOf('f_b [ext4]'));
});
