import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bucketCounts,
  headroomBucketStarts,
  headroomChart,
  offenderChart,
  throughputChart,
} from './run-charts.js';
import type { RunView } from './report-view.js';

function run(over: Partial<RunView>): RunView {
  return {
    label: 'r',
    facts: [],
    conclusion: [],
    suggestions: [],
    limitations: [],
    warnings: [],
    durationMs: 10_000,
    phases: [],
    xrunsMs: [],
    periodUs: 1333,
    headroom: [],
    headroomCount: 0,
    headroomSamplesUs: [],
    bufferUs: 2667,
    phaseHeadroom: [],
    offenders: [],
    classCounts: {},
    events: [],
    ...over,
  };
}
const points = (html: string, id: string) =>
  Number(new RegExp(`data-chart="${id}" data-points="(\\d+)"`).exec(html)?.[1]);

test('headroom buckets are tenths of the buffer; out-of-range samples go to the ends', () => {
  const starts = headroomBucketStarts(1000);
  assert.deepEqual(starts, [0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
  assert.deepEqual(
    bucketCounts([-5, 0, 99, 100, 950, 5000], starts),
    [3, 1, 0, 0, 0, 0, 0, 0, 0, 2],
  );
});

test('two runs with different buffers share buckets scaled to the longer buffer', () => {
  const html = headroomChart([
    run({ label: 'A', headroomSamplesUs: [100, 2600], bufferUs: 2667 }),
    run({ label: 'B', headroomSamplesUs: [5000, 5100, 10], bufferUs: 5333 }),
  ]);
  // A: 100 → bucket 0, 2600 → bucket 4; B: 10 → 0, 5000/5100 → 9: 4 non-empty bars.
  assert.equal(points(html, 'headroom-histogram'), 4);
  assert.match(html, /buffer 5\.33 ms/);
});

test('offenders line up across runs by signature, most events first', () => {
  const o = (signature: string, count: number) => ({
    function: signature,
    module: null,
    signature,
    count,
    share: 0,
  });
  const html = offenderChart([
    run({ label: 'A', offenders: [o('x', 1), o('y', 5)] }),
    run({ label: 'B', offenders: [o('x', 7)] }),
  ]);
  assert.ok(
    html.indexOf('data-key="x"') < html.indexOf('data-key="y"'),
    'x (8 events) before y (5)',
  );
  assert.equal(points(html, 'offenders'), 4);
});

test('loads that move no bytes are charted in operations per second', () => {
  const phase = (
    name: string,
    kind: string,
    mbPerSec: number | null,
    opsPerSec: number | null,
  ) => ({
    name,
    kind,
    startMs: 0,
    endMs: 1,
    xruns: 0,
    mbPerSec,
    opsPerSec,
  });
  const html = throughputChart([
    run({
      phases: [
        phase('idle', 'idle', null, null),
        phase('write', 'write', 100, null),
        phase('fork', 'fork', 0, 900),
      ],
    }),
  ]);
  assert.equal(points(html, 'throughput'), 1);
  assert.equal(points(html, 'throughput-ops'), 1);
  assert.doesNotMatch(html, />idle</);
});
