import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOnXrunRunner, onXrunEnv, ON_XRUN_MIN_INTERVAL_MS } from './on-xrun.js';

const details = (index: number) => ({
  index,
  timeMs: 1234.5,
  monotonicNs: 99,
  durationMs: 2.25,
  phase: 'write',
  device: 'hw:0,0',
});

test('the hook sees the xrun in XRUNHUNT_* variables', () => {
  assert.deepEqual(onXrunEnv(details(3)), {
    XRUNHUNT_XRUN_INDEX: '3',
    XRUNHUNT_XRUN_TIME_MS: '1234.500',
    XRUNHUNT_XRUN_MONOTONIC_NS: '99',
    XRUNHUNT_XRUN_DURATION_MS: '2.250',
    XRUNHUNT_XRUN_PHASE: 'write',
    XRUNHUNT_DEVICE: 'hw:0,0',
  });
});

test('an xrun storm runs the hook at most once per interval and never twice at once', async () => {
  const calls: NodeJS.ProcessEnv[] = [];
  let finish: (() => void) | null = null;
  // MOCK runner: records the environment and stays "running" until finish() is called.
  const runner = createOnXrunRunner('notify', { PATH: '/bin' }, (_cmd, env) => {
    calls.push(env);
    return new Promise((resolve) => (finish = () => resolve(0)));
  });
  assert.equal(runner.trigger(details(0), 0), true);
  assert.equal(runner.trigger(details(1), ON_XRUN_MIN_INTERVAL_MS + 1), false, 'still running');
  finish!();
  await runner.idle();
  assert.equal(runner.trigger(details(2), 10), false, 'inside the interval');
  assert.equal(runner.trigger(details(3), ON_XRUN_MIN_INTERVAL_MS + 5), true);
  finish!();
  await runner.idle();
  assert.equal(runner.ran, 2);
  assert.equal(runner.skipped, 2);
  assert.deepEqual(
    calls.map((c) => c['XRUNHUNT_XRUN_INDEX']),
    ['0', '3'],
  );
  assert.equal(calls[0]!['PATH'], '/bin');
});

test('a failing hook is reported, not thrown', async () => {
  const runner = createOnXrunRunner('false', {}, async () => 1);
  runner.trigger(details(0), 0);
  await runner.idle();
  assert.deepEqual(runner.failures, ['--on-xrun command exited with 1']);
});

test('the real shell runs the command with the variables', async () => {
  const runner = createOnXrunRunner('test "$XRUNHUNT_XRUN_PHASE" = write', {
    PATH: process.env['PATH'],
  });
  runner.trigger(details(0), 0);
  await runner.idle();
  assert.deepEqual(runner.failures, []);
  const bad = createOnXrunRunner('test "$XRUNHUNT_XRUN_PHASE" = idle', {
    PATH: process.env['PATH'],
  });
  bad.trigger(details(0), 0);
  await bad.idle();
  assert.deepEqual(bad.failures, ['--on-xrun command exited with 1']);
});
