// Ranked offenders as they accumulate: kernel code interrupted at each XRUN, most frequent first.
import { Text } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { fit, hbar } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

export interface OffendersPanelProps {
  state: Pick<DashboardState, 'offenders' | 'classCounts' | 'kernelEvents'>;
  width: number;
  lines: number;
}

const COUNT_W = 4;
const BAR_W = 6;
const SHARE_W = 5;

/** Offender name as users read it: "function [module]", or the signature when unnamed. */
export function offenderLabel(o: {
  function: string | null;
  module: string | null;
  signature: string;
}): string {
  if (o.function === null) return o.signature;
  return o.module ? `${o.function} [${o.module}]` : o.function;
}

/** Top offenders with count, bar and share of kernel-class events. */
export function OffendersPanel({ state, width, lines }: OffendersPanelProps) {
  const w = innerWidth(width);
  const kernel = state.classCounts.kernel;
  const rows = [];
  if (state.offenders.length === 0) {
    rows.push(
      <Text key="none" dimColor wrap="truncate-end">
        {fit(
          state.kernelEvents > 0
            ? 'no kernel offenders (idle / user space)'
            : 'no kernel XRUN dumps yet',
          w,
        )}
      </Text>,
    );
  } else {
    const max = state.offenders[0]!.count;
    const shown =
      state.offenders.length > lines ? state.offenders.slice(0, lines - 1) : state.offenders;
    const nameW = Math.max(4, w - COUNT_W - BAR_W - SHARE_W - 2);
    shown.forEach((o, i) => {
      const share = kernel > 0 ? `${Math.round((o.count / kernel) * 100)}%` : '';
      rows.push(
        <Text key={o.signature} wrap="truncate-end">
          {String(o.count).padStart(COUNT_W)}{' '}
          <Text color={i === 0 ? 'red' : 'magenta'}>{hbar(o.count, max, BAR_W)}</Text>{' '}
          <Text bold={i === 0}>{fit(offenderLabel(o), nameW).padEnd(nameW)}</Text>
          {share.padStart(SHARE_W)}
        </Text>,
      );
    });
    if (shown.length < state.offenders.length) {
      rows.push(
        <Text key="more" dimColor>
          {fit(`… ${state.offenders.length - shown.length} more`, w)}
        </Text>,
      );
    }
  }
  return (
    <Panel title="Offenders" width={width} lines={lines}>
      {rows.slice(0, lines)}
    </Panel>
  );
}
