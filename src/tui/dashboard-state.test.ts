import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_XRUN_BUCKETS,
  headroomHistogram,
  initialDashboardState,
  markStopping,
  recentXrunRate,
  reduceAll,
  reduceDashboard,
} from './dashboard-state.js';
import { kernelEvent, sampleEvents } from '../../test/tui/sample-events.js';

test('a session in progress: stream granted, counts, phase, offenders ranked', () => {
  const s = reduceAll(sampleEvents());
  assert.equal(s.status, 'running');
  assert.deepEqual(s.stream, {
    device: 'plug:jack',
    rateHz: 48000,
    periodFrames: 64,
    bufferFrames: 128,
    policy: 'SCHED_FIFO 80',
    hwPcm: null,
    granted: true,
  });
  assert.equal(s.xruns, 5);
  assert.equal(s.kernelEvents, 3);
  assert.equal(s.phase?.name, 'write');
  assert.equal(s.phase?.index, 1);
  assert.deepEqual(
    s.phases.map((p) => [p.name, p.kind, p.xruns]),
    [['idle', 'idle', 1]],
  );
  assert.deepEqual(
    s.offenders.map((o) => [o.function, o.count]),
    [
      ['__filemap_add_folio', 2],
      ['ext4_da_write_end', 1],
    ],
  );
  assert.equal(s.latestEvent?.offender.function, 'ext4_da_write_end');
  assert.equal(s.latestEventMatchedXrun, 3);
  assert.equal(s.capture?.stackDumps, true);
  assert.equal(s.load?.mbPerSec, 102.4);
  assert.equal(s.headroom?.minUs, 42);
});

test('xruns are bucketed per second of session time and buckets reach "now" on stats', () => {
  const s = reduceAll(sampleEvents());
  // Xruns at 4.2 s, 12.0 s, 19.9 s, 33.1 s and 33.9 s; the last stats event is at 42 s.
  assert.equal(s.xrunBuckets.length, 43);
  assert.equal(s.xrunBuckets[4], 1);
  assert.equal(s.xrunBuckets[12], 1);
  assert.equal(s.xrunBuckets[33], 2);
  assert.equal(
    s.xrunBuckets.reduce((a, b) => a + b, 0),
    5,
  );
});

test('the recent rate counts the last minute only', () => {
  let s = initialDashboardState();
  for (let i = 0; i < 6; i++) {
    s = reduceDashboard(s, {
      type: 'xrun',
      timeMs: 1000 + i * 1000,
      index: i,
      monotonicNs: 0,
      durationMs: null,
      phase: null,
    });
  }
  // 6 xruns in the first 6 s: the window is the 6 s so far → 60/min.
  assert.equal(Math.round(recentXrunRate(s)), 60);
  s = reduceDashboard(s, {
    type: 'stats',
    timeMs: 90_000,
    elapsedMs: 90_000,
    xruns: 6,
    kernelEvents: 0,
    headroom: null,
    phase: null,
    load: null,
    loadPaused: false,
  });
  assert.equal(recentXrunRate(s), 0);
  assert.equal(s.xruns, 6);
});

test('stats never lower the counts, and raise them when events were missed', () => {
  const s = reduceAll([
    { type: 'xrun', timeMs: 10, index: 0, monotonicNs: 0, durationMs: null, phase: null },
    {
      type: 'stats',
      timeMs: 20,
      elapsedMs: 20,
      xruns: 4,
      kernelEvents: 2,
      headroom: null,
      phase: null,
      load: null,
      loadPaused: true,
    },
    {
      type: 'stats',
      timeMs: 30,
      elapsedMs: 30,
      xruns: 1,
      kernelEvents: 0,
      headroom: null,
      phase: null,
      load: null,
      loadPaused: false,
    },
  ]);
  assert.equal(s.xruns, 4);
  assert.equal(s.kernelEvents, 2);
  assert.equal(s.loadPaused, false);
});

test('bucket history is capped and its origin moves forward', () => {
  const s = reduceAll([
    { type: 'xrun', timeMs: 500, index: 0, monotonicNs: 0, durationMs: null, phase: null },
    {
      type: 'xrun',
      timeMs: (MAX_XRUN_BUCKETS + 10) * 1000 + 1,
      index: 1,
      monotonicNs: 0,
      durationMs: null,
      phase: null,
    },
  ]);
  assert.equal(s.xrunBuckets.length, MAX_XRUN_BUCKETS);
  assert.equal(s.bucketOriginMs, 11_000);
  assert.equal(s.xrunBuckets.at(-1), 1);
  assert.equal(s.xruns, 2);
});

test('idle and user-space dumps are counted by class but never ranked', () => {
  const idle = kernelEvent(100);
  idle.offender = { class: 'idle', function: null, module: null, signature: null };
  const s = reduceAll([
    { type: 'kernel-event', timeMs: 100, event: idle, matchedXrun: null },
    { type: 'kernel-event', timeMs: 200, event: kernelEvent(200), matchedXrun: null },
  ]);
  assert.deepEqual(s.classCounts, { kernel: 1, idle: 1, user: 0, none: 0 });
  assert.equal(s.offenders.length, 1);
});

test('equal counts keep first-seen order (the list does not flicker)', () => {
  const s = reduceAll([
    { type: 'kernel-event', timeMs: 1, event: kernelEvent(1, 'b_func'), matchedXrun: null },
    { type: 'kernel-event', timeMs: 2, event: kernelEvent(2, 'a_func'), matchedXrun: null },
  ]);
  assert.deepEqual(
    s.offenders.map((o) => o.function),
    ['b_func', 'a_func'],
  );
});

test('headroom samples: the interval minimum per stats event, bucketed by buffer fraction', () => {
  const s = reduceAll(sampleEvents());
  assert.deepEqual(s.headroomMinHistory, [2100, 1500, 400, 42]);
  assert.deepEqual(headroomHistogram(s.headroomMinHistory, 2667, 3), [2, 1, 1]);
  // Above the buffer (a writer that filled it completely) lands in the last bucket.
  assert.deepEqual(headroomHistogram([5000, -3], 2667, 2), [1, 1]);
  assert.deepEqual(headroomHistogram([1], 0, 2), [0, 0]);
});

test('stopping then ended; the reducer never mutates its input', () => {
  const events = sampleEvents();
  const before = reduceAll(events);
  const frozen = JSON.stringify(before);
  const stopping = markStopping(before);
  assert.equal(stopping.status, 'stopping');
  const ended = reduceDashboard(stopping, { type: 'session-end', timeMs: 43_000, exitCode: 2 });
  assert.equal(ended.status, 'ended');
  assert.equal(ended.exitCode, 2);
  assert.equal(markStopping(ended).status, 'ended');
  assert.equal(JSON.stringify(before), frozen);
});

test('the session report conclusion is kept for the final frame', () => {
  const s = reduceDashboard(initialDashboardState(), {
    type: 'report',
    timeMs: 5,
    // Only the conclusion is read by the dashboard.
    report: { conclusion: ['your xruns happen while ext4 writes back pages'] } as never,
  });
  assert.deepEqual(s.conclusion, ['your xruns happen while ext4 writes back pages']);
});
