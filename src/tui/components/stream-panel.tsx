// The stream: device, rate, period and buffer in frames and ms, and the writer's scheduling.
import { Text } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { fit, framesToMs } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

export interface StreamPanelProps {
  state: Pick<DashboardState, 'stream' | 'host'>;
  width: number;
  lines: number;
}

/** Stream facts; "requested" until the device granted its parameters. */
export function StreamPanel({ state, width, lines }: StreamPanelProps) {
  const w = innerWidth(width);
  const s = state.stream;
  const rows: { text: string; color?: string; dim?: boolean }[] = [];
  if (s === null) {
    rows.push({ text: 'waiting for the session', dim: true });
  } else {
    rows.push({ text: `${s.device}  ${s.rateHz} Hz${s.hwPcm ? `  ${s.hwPcm}` : ''}` });
    rows.push({
      text: `period ${String(s.periodFrames).padStart(5)} fr  ${framesToMs(s.periodFrames, s.rateHz)}`,
    });
    rows.push({
      text: `buffer ${String(s.bufferFrames).padStart(5)} fr  ${framesToMs(s.bufferFrames, s.rateHz)}`,
    });
    if (!s.granted) rows.push({ text: 'requested; not open yet', dim: true });
    else {
      const rt = s.policy ?? 'unknown policy';
      rows.push({
        text: rt,
        color: rt.startsWith('SCHED_FIFO') || rt.startsWith('SCHED_RR') ? 'green' : 'yellow',
      });
    }
  }
  if (state.host)
    rows.push({ text: `kernel ${state.host.kernelRelease} ${state.host.preempt}`, dim: true });
  return (
    <Panel title="Stream" width={width} lines={lines}>
      {rows.slice(0, lines).map((r, i) => (
        <Text key={i} color={r.color} dimColor={r.dim} wrap="truncate-end">
          {fit(r.text, w)}
        </Text>
      ))}
    </Panel>
  );
}
