// The current load phase: which one, how far along, its throughput, and whether it is paused.
import { Text } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { clock, fit, progressBar } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

export interface LoadPanelProps {
  state: Pick<
    DashboardState,
    'phase' | 'phases' | 'load' | 'loadPaused' | 'nowMs' | 'status' | 'phasePlan'
  >;
  width: number;
  lines: number;
}

/** Formats a throughput for one line: "102.4 MB/s · 13.7k ops/s". */
export function formatThroughput(t: { mbPerSec: number; opsPerSec?: number } | null): string {
  if (t === null) return 'no load';
  const parts: string[] = [];
  if (t.mbPerSec > 0 || t.opsPerSec === undefined) parts.push(`${t.mbPerSec.toFixed(1)} MB/s`);
  if (t.opsPerSec !== undefined && t.opsPerSec > 0) {
    parts.push(
      t.opsPerSec >= 1000
        ? `${(t.opsPerSec / 1000).toFixed(1)}k ops/s`
        : `${t.opsPerSec.toFixed(0)} ops/s`,
    );
  }
  return parts.join(' · ');
}

/** Phase name, progress and throughput; the finished phases' xruns on the last line. */
export function LoadPanel({ state, width, lines }: LoadPanelProps) {
  const w = innerWidth(width);
  const p = state.phase;
  const rows = [];
  if (p === null) {
    rows.push(
      <Text key="p" dimColor wrap="truncate-end">
        {fit(
          state.status === 'ended'
            ? 'all phases done'
            : state.phasePlan
              ? `plan ${state.phasePlan}`
              : 'no phase running',
          w,
        )}
      </Text>,
    );
    rows.push(<Text key="b"> </Text>);
  } else {
    const elapsed = Math.max(0, state.nowMs - p.startMs);
    const tail = `${clock(elapsed)}/${clock(p.durationMs)}`;
    rows.push(
      <Text key="p" wrap="truncate-end">
        <Text bold>{fit(`${p.index + 1}/${p.total} ${p.name}`, Math.max(1, w - 9))}</Text>
        {p.kind !== p.name ? <Text dimColor>{` (${p.kind})`}</Text> : null}
        {state.loadPaused ? <Text color="yellow"> PAUSED</Text> : null}
      </Text>,
    );
    const barW = Math.max(1, w - tail.length - 1);
    rows.push(
      <Text key="b" wrap="truncate-end">
        <Text color="cyan">{progressBar(elapsed, p.durationMs, barW)}</Text> {tail}
      </Text>,
    );
  }
  const done = state.phases.map((f) => `${f.name} ${f.xruns}`).join(' · ');
  rows.push(
    <Text key="t" wrap="truncate-end">
      {fit(p ? formatThroughput(state.load) : done ? `xruns per phase: ${done}` : '', w)}
    </Text>,
  );
  return (
    <Panel title="Load phase" width={width} lines={lines}>
      {rows.slice(0, lines)}
    </Panel>
  );
}
