// Each chart marks its data points (`data-point`) and states how many (`data-points`); the
// browser test relies on both, so they are checked here against the input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderBarChart, truncateLabel } from './bar-chart.js';
import { renderTimelineChart, kindClass } from './timeline-chart.js';
import { bucketLabel, renderHistogramChart } from './histogram-chart.js';

const count = (svg: string, what: string) => svg.split(what).length - 1;
const declared = (svg: string) => Number(/data-points="(\d+)"/.exec(svg)?.[1]);

test('bar chart: one bar per non-null value, n/a for nulls, tooltips with the full label', () => {
  const svg = renderBarChart({
    id: 'offenders',
    title: 'Offenders',
    unit: 'events',
    categories: ['__filemap_add_folio', 'x'.repeat(60)],
    categoryKeys: ['sig-a', 'sig-b'],
    series: [
      { name: 'A', values: [3, null] },
      { name: 'B', values: [0, 2] },
    ],
    emptyText: 'none',
  });
  assert.equal(count(svg, 'data-point=""'), 3);
  assert.equal(declared(svg), 3);
  assert.equal(count(svg, '>n/a<'), 1);
  assert.match(svg, /data-key="sig-a"/);
  assert.match(svg, /<title>[^<]*x{60}[^<]*<\/title>/);
  assert.match(svg, /class="legend"/);
});

test('bar chart without categories says so and has no points', () => {
  const svg = renderBarChart({
    id: 'x',
    title: 'T',
    unit: 'u',
    categories: [],
    series: [],
    emptyText: 'nothing here',
  });
  assert.equal(declared(svg), 0);
  assert.match(svg, /nothing here/);
  assert.doesNotMatch(svg, /<svg/);
});

test('labels are cut with an ellipsis', () => {
  assert.equal(truncateLabel('abcdef', 4), 'abc…');
  assert.equal(truncateLabel('abc', 4), 'abc');
});

test('timeline: a dot per xrun and a tick per placed kernel event, for every run', () => {
  const phases = [
    { name: 'idle', kind: 'idle', startMs: 0, endMs: 10_000, xruns: 1 },
    { name: 'write', kind: 'write', startMs: 10_000, endMs: 40_000, xruns: 2 },
  ];
  const svg = renderTimelineChart([
    {
      name: 'A',
      phases,
      xrunsMs: [4000, 12_000, 30_000],
      kernelEventsMs: [12_000, 30_000],
      durationMs: 40_000,
    },
    { name: 'B', phases, xrunsMs: [5000], kernelEventsMs: [], durationMs: 25_000 },
  ]);
  assert.equal(count(svg, 'data-kind="xrun"'), 4);
  assert.equal(count(svg, 'data-kind="kernel-event"'), 2);
  assert.equal(declared(svg), 6);
  assert.equal(count(svg, 'class="step '), 2);
  assert.match(svg, /class="strip k0"/);
});

test('timeline of a quiet session still draws phases and has zero points', () => {
  const svg = renderTimelineChart([
    {
      name: 'A',
      phases: [{ name: 'idle', kind: 'idle', startMs: 0, endMs: 5000, xruns: 0 }],
      xrunsMs: [],
      kernelEventsMs: [],
      durationMs: 5000,
    },
  ]);
  assert.equal(declared(svg), 0);
  assert.match(svg, /strip k-idle/);
});

test('phase kinds keep their colour in every report', () => {
  assert.equal(kindClass('write'), 'k0');
  assert.equal(kindClass('idle'), 'k-idle');
  assert.equal(kindClass('my-custom-phase'), kindClass('my-custom-phase'));
});

test('histogram: a bar per non-empty bucket, overlaid outline for the second run, period marker', () => {
  const svg = renderHistogramChart({
    id: 'headroom',
    title: 'Headroom',
    bucketStartsUs: [0, 250, 500, 1000],
    series: [
      { name: 'A', counts: [1, 0, 5, 9] },
      { name: 'B', counts: [0, 2, 2, 0] },
    ],
    markerUs: 1333,
    markerLabel: 'one period',
    countLabel: 'seconds',
    emptyText: 'none',
  });
  assert.equal(declared(svg), 5);
  assert.equal(count(svg, 'data-point=""'), 5);
  assert.equal(count(svg, 'hbar outline s1'), 2);
  assert.match(svg, /class="marker"/);
  assert.equal(bucketLabel([0, 250], 0), '0–250 µs');
  assert.equal(bucketLabel([0, 250], 1), '≥ 250 µs');
});
