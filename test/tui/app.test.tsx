// The live app under ink-testing-library: a real SessionEventBus feeds it; the session's
// controls are a recording mock (there is no session here to pause or stop).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { render } from 'ink-testing-library';
import { SessionEventBus, type SessionControl } from '../../src/session/events.js';
import { DashboardApp } from '../../src/tui/app.js';
import { sampleEvents } from './sample-events.js';

/** Mock SessionControl: records each call by name. */
function recordingControl(): SessionControl & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    stop: () => calls.push('stop'),
    pauseLoad: () => calls.push('pauseLoad'),
    resumeLoad: () => calls.push('resumeLoad'),
    nextPhase: () => calls.push('nextPhase'),
    setStackDumps: (on) => calls.push(`setStackDumps(${on})`),
  };
}

// Ink renders on the next tick(s); input is read asynchronously too.
const tick = () => new Promise((r) => setTimeout(r, 30));

test('catches up on history, then follows live events', async () => {
  const bus = new SessionEventBus();
  const events = sampleEvents();
  for (const e of events.slice(0, 5)) bus.emit(e);
  const app = render(<DashboardApp source={bus} control={recordingControl()} />);
  await tick();
  assert.match(app.lastFrame()!, /1 xruns/);
  for (const e of events.slice(5)) bus.emit(e);
  await tick();
  assert.match(app.lastFrame()!, /5 xruns/);
  assert.match(app.lastFrame()!, /__filemap_add_folio/);
  app.unmount();
});

test('keys call the session controls: space, s, n, ? and q', async () => {
  const bus = new SessionEventBus();
  for (const e of sampleEvents()) bus.emit(e);
  const control = recordingControl();
  const app = render(<DashboardApp source={bus} control={control} />);
  await tick();
  app.stdin.write(' ');
  await tick();
  assert.match(app.lastFrame()!, /PAUSED/);
  app.stdin.write(' ');
  await tick();
  app.stdin.write('s');
  await tick();
  assert.match(app.lastFrame()!, /stacks off/);
  app.stdin.write('n');
  await tick();
  app.stdin.write('?');
  await tick();
  assert.match(app.lastFrame()!, /Keys/);
  app.stdin.write('?');
  await tick();
  assert.doesNotMatch(app.lastFrame()!, /─ Keys/);
  app.stdin.write('q');
  await tick();
  assert.match(app.lastFrame()!, /stopping: ending load and playback/);
  app.stdin.write('q');
  await tick();
  assert.deepEqual(control.calls, [
    'pauseLoad',
    'resumeLoad',
    'setStackDumps(false)',
    'nextPhase',
    'stop',
  ]);
  app.unmount();
});

test('Ctrl-C stops through the control (never kills the session) and the app ends with the session', async () => {
  const bus = new SessionEventBus();
  for (const e of sampleEvents()) bus.emit(e);
  const control = recordingControl();
  const app = render(<DashboardApp source={bus} control={control} />);
  await tick();
  app.stdin.write('\x03');
  await tick();
  assert.deepEqual(control.calls, ['stop']);
  bus.emit({ type: 'session-end', timeMs: 43_000, exitCode: 2 });
  await tick();
  assert.match(app.lastFrame()!, /ended/);
  app.unmount();
});
