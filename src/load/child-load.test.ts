import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeEnds } from './child-load.js';

test('one stop reason for the load: a full disk or a failure wins over a normal end', () => {
  assert.equal(mergeEnds(['duration', 'duration']), 'duration');
  assert.equal(mergeEnds(['duration', 'disk-full', 'stopped']), 'disk-full');
  assert.equal(mergeEnds(['duration', 'crashed']), 'failed');
  assert.equal(mergeEnds(['limit', 'limit']), 'limit');
  assert.equal(mergeEnds(['limit', 'duration']), 'duration');
  assert.equal(mergeEnds(['exited']), 'exited');
  assert.equal(mergeEnds(['stopped']), 'duration', "the parent's deadline caught it mid-operation");
});
