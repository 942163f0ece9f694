// The live dashboard: follows the session's events, turns keys into SessionControl calls,
// and exits once the session has ended (after `q`, once everything has been restored).
import { useEffect, useReducer, useRef, useState } from 'react';
import { useApp, useInput, useStdin } from 'ink';
import type { SessionControl, SessionEvent } from '../session/events.js';
import { Dashboard } from './components/dashboard.js';
import {
  markStopping,
  reduceAll,
  reduceDashboard,
  type DashboardState,
} from './dashboard-state.js';
import { keyAction } from './keys.js';
import { useTerminalSize } from './use-terminal-size.js';

/** Where the events come from: the session's bus (history for catching up, then live). */
export interface DashboardEventSource {
  readonly history: readonly SessionEvent[];
  on(listener: (event: SessionEvent) => void): () => void;
}

export interface DashboardAppProps {
  source: DashboardEventSource;
  control: SessionControl;
}

type Action =
  | { kind: 'event'; event: SessionEvent }
  | { kind: 'stopping' }
  | { kind: 'paused'; paused: boolean }
  | { kind: 'stacks'; on: boolean };

// User actions show at once; the session's next event (stats, capture-status) confirms them.
function reduce(state: DashboardState, action: Action): DashboardState {
  switch (action.kind) {
    case 'event':
      return reduceDashboard(state, action.event);
    case 'stopping':
      return markStopping(state);
    case 'paused':
      return { ...state, loadPaused: action.paused };
    case 'stacks':
      return state.capture
        ? { ...state, capture: { ...state.capture, stackDumps: action.on } }
        : state;
  }
}

/** The dashboard app; render it with Ink's render() (see run-dashboard.tsx). */
export function DashboardApp({ source, control }: DashboardAppProps) {
  // The history length at first render: what the initial state already contains.
  const caughtUp = useRef<number | null>(null);
  if (caughtUp.current === null) caughtUp.current = source.history.length;
  const [state, dispatch] = useReducer(reduce, source, (s) =>
    reduceAll(s.history.slice(0, caughtUp.current ?? 0)),
  );
  const [help, setHelp] = useState(false);
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();
  const size = useTerminalSize();
  // Keys act on the latest state, whatever render the input handler was created in.
  const latest = useRef(state);
  latest.current = state;

  useEffect(() => {
    // Events emitted between the first render and this subscription are replayed.
    const off = source.on((event) => dispatch({ kind: 'event', event }));
    for (const e of source.history.slice(caughtUp.current ?? 0))
      dispatch({ kind: 'event', event: e });
    caughtUp.current = Number.POSITIVE_INFINITY;
    return off;
  }, [source]);

  useEffect(() => {
    if (state.status === 'ended') exit();
  }, [state.status, exit]);

  useInput(
    (input, key) => {
      const action = keyAction(input, key.ctrl, latest.current);
      // Applied to the ref at once too, so a second key before the next render sees it.
      const local = (a: Action) => {
        latest.current = reduce(latest.current, a);
        dispatch(a);
      };
      switch (action.kind) {
        case 'stop':
          local({ kind: 'stopping' });
          control.stop();
          break;
        case 'pause-load':
          local({ kind: 'paused', paused: true });
          control.pauseLoad();
          break;
        case 'resume-load':
          local({ kind: 'paused', paused: false });
          control.resumeLoad();
          break;
        case 'stack-dumps':
          local({ kind: 'stacks', on: action.on });
          control.setStackDumps(action.on);
          break;
        case 'next-phase':
          control.nextPhase();
          break;
        case 'toggle-help':
          setHelp((h) => !h);
          break;
        case 'none':
          break;
      }
    },
    { isActive: isRawModeSupported === true },
  );

  return <Dashboard state={state} columns={size.columns} rows={size.rows} showHelp={help} />;
}
