import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closestName, editDistance } from './did-you-mean.js';

test('edit distance counts a swapped pair of letters as one edit', () => {
  assert.equal(editDistance('fromat', 'format'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
});

test('the closest command is offered for typos and prefixes, nothing for unrelated words', () => {
  const names = ['aggregate', 'analyze', 'compare', 'debug', 'doctor', 'play', 'session', 'stress'];
  assert.equal(closestName('analyse', names), 'analyze');
  assert.equal(closestName('agg', names), 'aggregate');
  assert.equal(closestName('sesion', names), 'session');
  assert.equal(closestName('frobnicate', names), null);
  assert.equal(closestName('x', names), null);
});
