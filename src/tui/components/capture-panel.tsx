// Kernel capture status: where XRUN dumps come from, whether any were lost, the mask in force.
import type { ReactElement } from 'react';
import { Text } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { fit } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

export interface CapturePanelProps {
  state: Pick<DashboardState, 'capture' | 'host'>;
  width: number;
  lines: number;
}

/** One or two lines on the kernel log capture. */
export function CapturePanel({ state, width, lines }: CapturePanelProps) {
  const w = innerWidth(width);
  const c = state.capture;
  let first: ReactElement;
  let second: ReactElement;
  if (c === null) {
    first = <Text dimColor>{fit('kernel capture not started', w)}</Text>;
    second = (
      <Text dimColor>
        {fit(
          state.host && !state.host.xrunDebugAvailable ? 'this kernel has no xrun_debug' : '',
          w,
        )}
      </Text>
    );
  } else {
    first = (
      <Text wrap="truncate-end">
        {c.source}
        {' · lost '}
        <Text color={c.lostMessages > 0 ? 'red' : 'green'}>{String(c.lostMessages)}</Text>
        {fit(` · stacks ${c.stackDumps ? 'on' : 'off'}`, Math.max(0, w - c.source.length - 8))}
      </Text>
    );
    second = (
      <Text wrap="truncate-end">
        {fit(
          c.mask === null
            ? 'xrun_debug not set'
            : `xrun_debug ${c.mask}${c.pcm ? ` on ${c.pcm}` : ''}`,
          w,
        )}
      </Text>
    );
  }
  return (
    <Panel title="Kernel capture" width={width} lines={lines}>
      {[<Text key="a">{first}</Text>, <Text key="b">{second}</Text>].slice(0, lines)}
    </Panel>
  );
}
