// The live app under ink-testing-library: a real SessionEventBus feeds it; the session's
// controls are a recording mock (there is no session here to pause or stop).
import '../helpers/ink-interactive.js';
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

/** Waits until the latest frame matches (Ink renders asynchronously); fails after 3 s. */
async function frameMatching(
  app: { lastFrame(): string | undefined },
  re: RegExp,
): Promise<string> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const f = app.lastFrame() ?? '';
    if (re.test(f)) return f;
    if (Date.now() > deadline) assert.fail(`no frame matching ${re} within 3 s; last:\n${f}`);
    await tick();
  }
}

test('catches up on history, then follows live events', async () => {
  const bus = new SessionEventBus();
  const events = sampleEvents();
  for (const e of events.slice(0, 5)) bus.emit(e);
  const app = render(<DashboardApp source={bus} control={recordingControl()} />);
  await frameMatching(app, /1 xruns/);
  for (const e of events.slice(5)) bus.emit(e);
  const f = await frameMatching(app, /5 xruns/);
  assert.match(f, /__filemap_add_folio/);
  app.unmount();
});

test('keys call the session controls: space, s, n, ? and q', async () => {
  const bus = new SessionEventBus();
  for (const e of sampleEvents()) bus.emit(e);
  const control = recordingControl();
  const app = render(<DashboardApp source={bus} control={control} />);
  await frameMatching(app, /5 xruns/);
  app.stdin.write(' ');
  await frameMatching(app, /PAUSED/);
  app.stdin.write(' ');
  await frameMatching(app, /2\/2 write {2}/);
  app.stdin.write('s');
  await frameMatching(app, /stacks off/);
  app.stdin.write('n');
  app.stdin.write('?');
  await frameMatching(app, /─ Keys/);
  app.stdin.write('?');
  await frameMatching(app, /─ Offenders/);
  app.stdin.write('q');
  await frameMatching(app, /stopping: ending load and playback/);
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
  await frameMatching(app, /5 xruns/);
  app.stdin.write('\x03');
  await frameMatching(app, /stopping/);
  assert.deepEqual(control.calls, ['stop']);
  bus.emit({ type: 'session-end', timeMs: 43_000, exitCode: 2 });
  await frameMatching(app, /^xrunhunt ended/);
  app.unmount();
});
