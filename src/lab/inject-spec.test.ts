import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockupModuleParams, parseInjectSpec } from './inject-spec.js';
import { UsageError } from '../errors.js';

test('parses ms and mode; irq is the default mode', () => {
  assert.deepEqual(parseInjectSpec('lockup:10'), { kind: 'lockup', sectionMs: 10, mode: 'irq' });
  assert.deepEqual(parseInjectSpec('lockup:5:softirq'), {
    kind: 'lockup',
    sectionMs: 5,
    mode: 'softirq',
  });
});

test('rejects other kinds, bad numbers and bad modes with a usage error', () => {
  for (const bad of [
    'lock:10',
    'lockup',
    'lockup:abc',
    'lockup:0',
    'lockup:5000',
    'lockup:5:nmi',
    'lockup:5:irq:x',
  ]) {
    assert.throws(() => parseInjectSpec(bad), UsageError, bad);
  }
});

test('renders the §5a recipe parameters with ~2 s per insmod', () => {
  assert.deepEqual(lockupModuleParams(parseInjectSpec('lockup:10:irq')), [
    'time_nsecs=10000000',
    'cooldown_nsecs=50000000',
    'iterations=33',
    'reacquire_locks=1',
    'disable_irq=1',
  ]);
  assert.ok(lockupModuleParams(parseInjectSpec('lockup:1000:preempt')).includes('iterations=2'));
  assert.ok(lockupModuleParams(parseInjectSpec('lockup:5:preempt')).includes('disable_preempt=1'));
});
