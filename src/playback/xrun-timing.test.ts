import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeXrunTiming } from './xrun-timing.js';
import type { XrunTimingInput } from './xrun-timing.js';

const base: XrunTimingInput = {
  detectNs: 1_020_000_000n,
  resumeNs: 1_020_100_000n,
  triggerNs: 1_002_000_000n,
  statusIsXrun: true,
  lastWriteNs: 1_000_000_000n,
  queuedAfterLastWrite: 128,
  rate: 48000,
};

test('a plausible trigger timestamp marks the start', () => {
  const t = computeXrunTiming(base);
  assert.equal(t.startSource, 'trigger');
  assert.equal(t.startNs, 1_002_000_000n);
  assert.equal(t.durationMs, 18.1);
});

test('an unset trigger timestamp (0) falls back to the queued audio at the last write', () => {
  const t = computeXrunTiming({ ...base, triggerNs: 0n });
  assert.equal(t.startSource, 'estimate');
  // 128 frames at 48 kHz = 2.666667 ms after the last write.
  assert.equal(t.startNs, 1_002_666_667n);
  assert.equal(t.durationMs, 17.433);
});

test('a trigger timestamp from another clock (after detection, or before the last write) is ignored', () => {
  assert.equal(computeXrunTiming({ ...base, triggerNs: 5_000_000_000n }).startSource, 'estimate');
  assert.equal(computeXrunTiming({ ...base, triggerNs: 10n }).startSource, 'estimate');
  assert.equal(computeXrunTiming({ ...base, statusIsXrun: false }).startSource, 'estimate');
});

test('the duration is never negative, even with a resume before detection', () => {
  const t = computeXrunTiming({
    ...base,
    triggerNs: 0n,
    resumeNs: 0n,
    lastWriteNs: 1_019_999_000n,
  });
  assert.ok(t.durationMs >= 0);
  assert.equal(t.durationMs, 0);
  assert.ok(t.startNs <= base.detectNs);
});

test('without any earlier write the start is the detection time', () => {
  const t = computeXrunTiming({ ...base, triggerNs: 0n, lastWriteNs: null });
  assert.equal(t.startNs, base.detectNs);
  assert.equal(t.durationMs, 0.1);
});
