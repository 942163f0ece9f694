// The entry the session command calls for `--tui`: the Ink dashboard on a terminal, plain
// lines otherwise. It only reads the session's events and calls its controls; the session
// itself restores xrun_debug and stops loads, whatever the dashboard does.
import type { Readable, Writable } from 'node:stream';
import { render } from 'ink';
import type { SessionControl } from '../session/events.js';
import { DashboardApp, type DashboardEventSource } from './app.js';
import { followPlain } from './plain-lines.js';

/** How long to wait for the app to draw its final frame after the session ended (ms). */
const FINAL_FRAME_WAIT_MS = 500;

export interface DashboardIo {
  stdout: Writable;
  stdin: Readable;
  stderr: Writable;
  /** Whether stdout is a terminal: the dashboard draws only then. */
  stdoutIsTTY: boolean;
}

/** A running session as the dashboard needs it (SessionHandle fits). */
export interface DashboardSession {
  events: DashboardEventSource;
  control: SessionControl;
  done: Promise<number>;
}

/** Shows the session live until it ends; resolves with the session's exit code. */
export async function runDashboard(session: DashboardSession, io: DashboardIo): Promise<number> {
  if (!io.stdoutIsTTY) {
    const off = followPlain(session.events, (line) => io.stdout.write(line));
    try {
      return await session.done;
    } finally {
      off();
    }
  }
  const ink = render(<DashboardApp source={session.events} control={session.control} />, {
    stdout: io.stdout as NodeJS.WriteStream,
    stdin: io.stdin as NodeJS.ReadStream,
    stderr: io.stderr as NodeJS.WriteStream,
    // q and Ctrl-C both stop the session through its control, so it can restore first.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  try {
    const code = await session.done;
    // The app exits itself on 'session-end' after drawing the final frame; give it a moment.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ink.waitUntilExit(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, FINAL_FRAME_WAIT_MS))),
    ]);
    clearTimeout(timer);
    return code;
  } finally {
    ink.unmount();
  }
}
