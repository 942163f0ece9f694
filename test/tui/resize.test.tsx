// The live app follows terminal resizes: a fake stdout (a mock: no terminal here) reports
// 120×40, then 80×24 with a 'resize' event, and the next frame fits the new size.
import '../helpers/ink-interactive.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { render } from 'ink';
import { SessionEventBus, type SessionControl } from '../../src/session/events.js';
import { DashboardApp } from '../../src/tui/app.js';
import { sampleEvents } from './sample-events.js';

/** Mock terminal output stream: records frames, has a size that the test changes. */
class FakeTerminal extends EventEmitter {
  columns = 120;
  rows = 40;
  isTTY = true;
  frames: string[] = [];
  write(s: string): boolean {
    this.frames.push(s);
    return true;
  }
}

const noControl: SessionControl = {
  stop: () => undefined,
  pauseLoad: () => undefined,
  resumeLoad: () => undefined,
  nextPhase: () => undefined,
  setStackDumps: () => undefined,
};

// eslint-disable-next-line no-control-regex
const visible = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
const widest = (frame: string) =>
  Math.max(
    ...visible(frame)
      .split('\n')
      .map((l) => [...l].length),
  );

test('a resize re-plans the layout for the new size', async () => {
  const bus = new SessionEventBus();
  for (const e of sampleEvents()) bus.emit(e);
  const term = new FakeTerminal();
  const stdin = Object.assign(new EventEmitter(), {
    isTTY: false,
    setEncoding() {},
    setRawMode() {},
    resume() {},
    pause() {},
    ref() {},
    unref() {},
    read: () => null,
  });
  const app = render(<DashboardApp source={bus} control={noControl} />, {
    stdout: term as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    patchConsole: false,
    exitOnCtrlC: false,
    debug: true,
  });
  await new Promise((r) => setTimeout(r, 100));
  const wide = term.frames.filter((f) => f.includes('xrunhunt')).at(-1)!;
  assert.ok(widest(wide) > 100 && widest(wide) <= 120, `first frame is 120 wide (${widest(wide)})`);
  term.frames = [];
  term.columns = 80;
  term.rows = 24;
  term.emit('resize');
  await new Promise((r) => setTimeout(r, 100));
  const narrow = term.frames.filter((f) => f.includes('xrunhunt')).at(-1)!;
  assert.ok(narrow, 'a new frame after resize');
  assert.ok(widest(narrow) <= 80, `after resize the frame is at most 80 wide (${widest(narrow)})`);
  assert.ok(visible(narrow).trimEnd().split('\n').length <= 23, 'and at most 23 rows');
  app.unmount();
});
