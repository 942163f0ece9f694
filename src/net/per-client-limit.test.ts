import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPerClientLimit } from './per-client-limit.js';

test('each client gets max places; releasing frees one; empty clients are forgotten', () => {
  const l = createPerClientLimit(2);
  assert.deepEqual(
    [l.tryTake('a'), l.tryTake('a'), l.tryTake('a'), l.tryTake('b')],
    [true, true, false, true],
  );
  assert.equal(l.clients(), 2);
  l.release('a');
  assert.equal(l.count('a'), 1);
  assert.equal(l.tryTake('a'), true);
  l.release('a');
  l.release('a');
  l.release('b');
  assert.equal(l.clients(), 0);
  l.release('zzz');
  assert.equal(l.count('zzz'), 0);
});
