// Two lines above the panels: what is running and the keys; then the latest news (a warning,
// "stopping…", or the conclusion once the session has ended).
import { Box, Text } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { clock, fit } from '../text-graphics.js';

export interface HeaderProps {
  state: DashboardState;
  width: number;
}

const STATUS_TEXT: Record<DashboardState['status'], [string, string]> = {
  starting: ['starting', 'yellow'],
  running: ['running', 'green'],
  stopping: ['stopping', 'yellow'],
  ended: ['ended', 'cyan'],
};

const KEYS = 'q quit  ␣ pause  s stacks  n next  ? help';

/** The status of the news line: what the user most needs to know right now. */
export function newsLine(state: DashboardState): { text: string; color?: string } {
  if (state.status === 'stopping')
    return { text: 'stopping: ending load and playback, restoring xrun_debug…', color: 'yellow' };
  if (state.status === 'ended') {
    const first = state.conclusion[0];
    return { text: first ?? `session ended (exit ${state.exitCode ?? '?'})`, color: 'cyan' };
  }
  const warning = state.warnings.at(-1);
  if (warning) return { text: `⚠ ${warning}`, color: 'yellow' };
  const failed = state.checks.find((c) => c.status === 'fail' || c.status === 'warn');
  if (failed)
    return {
      text: `${failed.status}: ${failed.message}`,
      color: failed.status === 'fail' ? 'red' : 'yellow',
    };
  return { text: '' };
}

/** Title line with the keys right-aligned when they fit, and the news line. */
export function Header({ state, width }: HeaderProps) {
  const [label, color] = STATUS_TEXT[state.status];
  const left = ` ${label} ${clock(state.nowMs)}${state.stream ? ` · ${state.stream.device}` : ''}`;
  const title = 'xrunhunt';
  const used = title.length + left.length;
  const keys = width - used >= KEYS.length + 2 ? KEYS : width - used >= 10 ? '? help' : '';
  const news = newsLine(state);
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text bold>{title}</Text>
        <Text color={color}>{fit(left, Math.max(0, width - title.length))}</Text>
        {keys ? <Text dimColor>{keys.padStart(width - used)}</Text> : null}
      </Text>
      <Text color={news.color} wrap="truncate-end">
        {fit(news.text, width) || ' '}
      </Text>
    </Box>
  );
}
