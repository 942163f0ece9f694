// The A/B summary over alternated rounds: per-phase sums, the exact ratio, the top offender
// and the verdict sentence for a drop, for no change and for nothing to compare.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KnobChange } from './knobs/index.js';
import { summarizeTry, type TryRound } from './try-result.js';

const knob: KnobChange = {
  spec: 'scheduler.sda=mq-deadline',
  what: 'the I/O scheduler of sda',
  from: 'bfq',
  to: 'mq-deadline',
  writes: [],
};

const round = (
  r: number,
  arm: 'A' | 'B',
  idle: number,
  write: number,
  offenders: { name: string; count: number }[] = [],
): TryRound => ({
  round: r,
  arm,
  durationMs: 80_000,
  phases: [
    { name: 'idle', xruns: idle, durationMs: 20_000 },
    { name: 'write', xruns: write, durationMs: 60_000 },
  ],
  offenders,
});

test('a drop under write: per-minute rates, exact interval, the offender gone, exit 0', () => {
  const wb = [{ name: 'ext4_writepages [ext4]', count: 20 }];
  const sessions: TryRound[] = [];
  for (let r = 1; r <= 6; r++) sessions.push(round(r, 'A', 0, 41, wb), round(r, 'B', 0, 3));
  const t = summarizeTry([knob], sessions);
  assert.equal(t.rounds, 6);
  const write = t.phases.find((p) => p.name === 'write')!;
  assert.equal(write.rate.a.count, 246);
  assert.equal(write.rate.a.minutes, 6);
  assert.equal(write.rate.a.perMinute, 41);
  assert.equal(write.rate.b.perMinute, 3);
  assert.ok(write.rate.significant && write.rate.high < 0.15, JSON.stringify(write.rate));
  assert.equal(t.topOffender?.a, 120);
  assert.equal(t.topOffender?.b, 0);
  assert.match(
    t.verdict,
    /^Setting the I\/O scheduler of sda to mq-deadline showed no xruns under idle with either setting \(6 rounds\); cut xruns under write from 41\/min to 3\.0\/min \(ratio 0\.073, 95 % CI 0\.0\d+–0\.\d+, 6 rounds\); the top offender `ext4_writepages \[ext4\]` disappeared/,
  );
  assert.match(t.verdict, /It helps: make it permanent/);
  assert.equal(t.exitCode, 0);
});

test('the same rate in A and B: no significant effect, exit 2', () => {
  const sessions = [1, 2, 3].flatMap((r) => [round(r, 'A', 1, 10), round(r, 'B', 1, 11)]);
  const t = summarizeTry([knob], sessions);
  assert.equal(t.total?.significant, false);
  assert.match(t.verdict, /made no significant difference under write/);
  assert.match(t.verdict, /No significant effect over 3 rounds/);
  assert.equal(t.exitCode, 2);
});

test('an unpaired last A (Ctrl-C during B) is left out; no xruns at all says so', () => {
  const t = summarizeTry([knob], [round(1, 'A', 0, 0), round(1, 'B', 0, 0), round(2, 'A', 5, 5)]);
  assert.equal(t.rounds, 1);
  assert.equal(t.total?.a.count, 0);
  assert.match(t.verdict, /Nothing to compare: no xruns with either setting/);
  const none = summarizeTry([knob], []);
  assert.match(none.verdict, /No complete A\/B round ran/);
  assert.equal(none.exitCode, 2);
});
