import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyAction } from './keys.js';
import { initialDashboardState, reduceAll } from './dashboard-state.js';
import { sampleEvents } from '../../test/tui/sample-events.js';

const running = reduceAll(sampleEvents());

test('q and Ctrl-C stop; once stopping, they do nothing more', () => {
  assert.deepEqual(keyAction('q', false, running), { kind: 'stop' });
  assert.deepEqual(keyAction('c', true, running), { kind: 'stop' });
  assert.deepEqual(keyAction('q', false, { ...running, status: 'stopping' }), { kind: 'none' });
  assert.deepEqual(keyAction('c', false, running), { kind: 'none' });
});

test('space toggles the load according to the state, s toggles stack dumps', () => {
  assert.deepEqual(keyAction(' ', false, running), { kind: 'pause-load' });
  assert.deepEqual(keyAction(' ', false, { ...running, loadPaused: true }), {
    kind: 'resume-load',
  });
  assert.deepEqual(keyAction('s', false, running), { kind: 'stack-dumps', on: false });
  assert.deepEqual(
    keyAction('s', false, { ...running, capture: { ...running.capture!, stackDumps: false } }),
    {
      kind: 'stack-dumps',
      on: true,
    },
  );
  assert.deepEqual(keyAction('n', false, running), { kind: 'next-phase' });
});

test('help toggles any time; controls are ignored after the end', () => {
  const ended = { ...initialDashboardState(), status: 'ended' as const };
  assert.deepEqual(keyAction('?', false, ended), { kind: 'toggle-help' });
  assert.deepEqual(keyAction(' ', false, ended), { kind: 'none' });
  assert.deepEqual(keyAction('n', false, ended), { kind: 'none' });
});
