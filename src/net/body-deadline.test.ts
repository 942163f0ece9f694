import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BODY_DEADLINE, judgeBodyProgress } from './body-deadline.js';

test('within the grace anything goes; after it the average rate counts', () => {
  assert.equal(judgeBodyProgress(0, 2_999).kind, 'ok');
  // The slow-body attack: one byte every 2 s.
  const slow = judgeBodyProgress(2, 4_000);
  assert.equal(slow.kind, 'too-slow');
  assert.match('reason' in slow ? slow.reason : '', /0 bytes\/s, below the 4096 bytes\/s/);
  // 68 KB in 10 s on a poor link is fine.
  assert.equal(judgeBodyProgress(68_000, 10_000).kind, 'ok');
  assert.equal(judgeBodyProgress(4096 * 5, 5_000).kind, 'ok');
  assert.equal(judgeBodyProgress(4096 * 5 - 1, 5_000).kind, 'too-slow');
});

test('the whole body has a hard time limit whatever the rate', () => {
  const v = judgeBodyProgress(10_000_000, DEFAULT_BODY_DEADLINE.maxMs + 1);
  assert.equal(v.kind, 'too-long');
  assert.match('reason' in v ? v.reason : '', /within 30 s/);
  assert.equal(judgeBodyProgress(10_000_000, DEFAULT_BODY_DEADLINE.maxMs).kind, 'ok');
});
