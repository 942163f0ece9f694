// Headroom: how much audio was still queued when the writer woke up. Bars are scaled to the
// buffer length, so a bar near empty is a near-miss; the trend line shows the minimum per
// second (dips are the moments the load almost caused an xrun).
import type { ReactElement } from 'react';
import { Text } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { fit, hbar, shortUs, sparkline } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

export interface HeadroomPanelProps {
  state: Pick<DashboardState, 'headroom' | 'headroomMinHistory' | 'stream'>;
  width: number;
  lines: number;
}

const LABEL_W = 4; // "p50 "
const VALUE_W = 8; // " 1.33 ms"

/** Percentile bars of the headroom, relative to the whole buffer. */
export function HeadroomPanel({ state, width, lines }: HeadroomPanelProps) {
  const w = innerWidth(width);
  const h = state.headroom;
  const s = state.stream;
  const bufferUs = s && s.rateHz > 0 ? (s.bufferFrames / s.rateHz) * 1e6 : null;
  const rows: ReactElement[] = [];
  if (h === null || h.count === 0) {
    rows.push(
      <Text key="none" dimColor>
        {fit('no wake-ups measured yet', w)}
      </Text>,
    );
  } else {
    const max = bufferUs ?? Math.max(h.p50Us, 1);
    const barW = Math.max(1, w - LABEL_W - VALUE_W);
    const row = (label: string, us: number, color: string) => (
      <Text key={label} wrap="truncate-end">
        {label.padEnd(LABEL_W)}
        <Text color={color}>{hbar(us, max, barW)}</Text>
        {shortUs(us).padStart(VALUE_W)}
      </Text>
    );
    const danger = (us: number) => (bufferUs !== null && us < bufferUs * 0.25 ? 'red' : 'green');
    rows.push(
      row('p50', h.p50Us, danger(h.p50Us)),
      row('p99', h.p99Us, danger(h.p99Us)),
      row('min', h.minUs, danger(h.minUs)),
    );
    rows.push(
      <Text key="trend" dimColor wrap="truncate-end">
        {'min '}
        {sparkline(state.headroomMinHistory, Math.max(1, w - LABEL_W))}
      </Text>,
    );
  }
  return (
    <Panel
      title={`Headroom${bufferUs !== null ? ` (of ${shortUs(bufferUs)} buffer)` : ''}`}
      width={width}
      lines={lines}
    >
      {rows.slice(0, lines)}
    </Panel>
  );
}
