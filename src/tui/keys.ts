// What each key does, as a pure function of the key and the current state, so the key map
// is tested without a terminal. The app turns the result into SessionControl calls.
import type { DashboardState } from './dashboard-state.js';

export type KeyAction =
  | { kind: 'stop' }
  | { kind: 'pause-load' }
  | { kind: 'resume-load' }
  | { kind: 'stack-dumps'; on: boolean }
  | { kind: 'next-phase' }
  | { kind: 'toggle-help' }
  | { kind: 'none' };

/** Maps one key press to an action; keys do nothing once the session is stopping or over. */
export function keyAction(input: string, ctrl: boolean, state: DashboardState): KeyAction {
  if ((ctrl && input === 'c') || input === 'q' || input === 'Q') {
    return state.status === 'stopping' || state.status === 'ended'
      ? { kind: 'none' }
      : { kind: 'stop' };
  }
  if (input === '?' || input === 'h') return { kind: 'toggle-help' };
  if (state.status !== 'running' && state.status !== 'starting') return { kind: 'none' };
  if (input === ' ') return state.loadPaused ? { kind: 'resume-load' } : { kind: 'pause-load' };
  if (input === 's') return { kind: 'stack-dumps', on: !(state.capture?.stackDumps ?? false) };
  if (input === 'n') return { kind: 'next-phase' };
  return { kind: 'none' };
}
