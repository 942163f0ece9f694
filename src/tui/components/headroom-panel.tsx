// Headroom: how much audio was still queued when the writer woke up. A histogram of each
// second's smallest headroom, in fractions of the buffer: the top row is near-misses (less
// than a third of the buffer left), and a fat top row means xruns are close. The last line
// has the session's percentiles.
import type { ReactElement } from 'react';
import { Text } from 'ink';
import { headroomHistogram, type DashboardState } from '../dashboard-state.js';
import { fit, hbar, shortUs } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

export interface HeadroomPanelProps {
  state: Pick<DashboardState, 'headroom' | 'headroomMinHistory' | 'stream'>;
  width: number;
  lines: number;
}

const LABEL_W = 8; // "33–67% "
const COUNT_W = 5;

const tight = (us: number) => shortUs(us).replace(' ', '');

/** Labels for n buckets of the buffer: "0–33%", "33–67%", "67–100%". */
export function bucketLabels(n: number): string[] {
  return Array.from(
    { length: n },
    (_, i) => `${Math.round((i * 100) / n)}–${Math.round(((i + 1) * 100) / n)}%`,
  );
}

/** Histogram rows (one per bucket) and a percentile line. */
export function HeadroomPanel({ state, width, lines }: HeadroomPanelProps) {
  const w = innerWidth(width);
  const h = state.headroom;
  const s = state.stream;
  const bufferUs = s && s.rateHz > 0 ? (s.bufferFrames / s.rateHz) * 1e6 : null;
  const rows: ReactElement[] = [];
  const samples = state.headroomMinHistory;
  if (bufferUs === null || samples.length === 0) {
    rows.push(
      <Text key="none" dimColor>
        {fit('no wake-ups measured yet', w)}
      </Text>,
    );
  } else {
    const buckets = Math.max(1, lines - 1);
    const counts = headroomHistogram(samples, bufferUs, buckets);
    const max = Math.max(...counts);
    const labels = bucketLabels(buckets);
    const barW = Math.max(1, w - LABEL_W - COUNT_W);
    counts.forEach((c, i) => {
      rows.push(
        <Text key={`b${i}`} wrap="truncate-end">
          {labels[i]!.padEnd(LABEL_W)}
          <Text color={i === 0 ? 'red' : i === 1 && buckets > 2 ? 'yellow' : 'green'}>
            {hbar(c, max, barW)}
          </Text>
          {String(c).padStart(COUNT_W)}
        </Text>,
      );
    });
  }
  if (h !== null && h.count > 0 && rows.length < lines) {
    rows.push(
      <Text key="p" dimColor wrap="truncate-end">
        {fit(`p50 ${tight(h.p50Us)} p99 ${tight(h.p99Us)} min ${tight(h.minUs)}`, w)}
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
