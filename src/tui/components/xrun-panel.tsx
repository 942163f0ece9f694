// Xrun count and rate, with a sparkline of xruns per second over the session.
import { Text } from 'ink';
import { recentXrunRate, type DashboardState } from '../dashboard-state.js';
import { fit, sparkline } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

export interface XrunPanelProps {
  state: DashboardState;
  width: number;
  lines: number;
}

/** The headline number: how many underruns, how often lately, and when. */
export function XrunPanel({ state, width, lines }: XrunPanelProps) {
  const w = innerWidth(width);
  const rate = recentXrunRate(state);
  const c = state.classCounts;
  const rows = [
    <Text key="n" wrap="truncate-end">
      <Text bold color={state.xruns > 0 ? 'red' : 'green'}>
        {String(state.xruns)}
      </Text>
      {fit(
        ` xruns · ${rate.toFixed(1)}/min · ${state.kernelEvents} dumps`,
        Math.max(0, w - String(state.xruns).length),
      )}
    </Text>,
    <Text key="s" color={state.xruns > 0 ? 'red' : 'gray'}>
      {sparkline(state.xrunBuckets, w).padEnd(w, ' ')}
    </Text>,
    <Text key="c" dimColor wrap="truncate-end">
      {fit(
        state.kernelEvents > 0
          ? `dumps: ${(['kernel', 'idle', 'user', 'none'] as const)
              .filter((k) => c[k] > 0)
              .map((k) => `${c[k]} ${k}`)
              .join(', ')}`
          : 'xruns/s, newest on the right',
        w,
      )}
    </Text>,
  ];
  return (
    <Panel title="Xruns" width={width} lines={lines}>
      {rows.slice(0, lines)}
    </Panel>
  );
}
