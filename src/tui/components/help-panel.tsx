// The key help shown by `?` in place of the right-hand column.
import { Text } from 'ink';
import { fit } from '../text-graphics.js';
import { Panel, innerWidth } from './panel.js';

/** The keys and what each does to the running session. */
export const KEY_HELP: readonly [string, string][] = [
  ['q', 'stop, restore xrun_debug, report'],
  ['space', 'pause / resume the load'],
  ['s', 'stack dumps on / off (mask bit 1)'],
  ['n', 'next load phase now'],
  ['?', 'show / hide this help'],
  ['Ctrl-C', 'same as q'],
];

export interface HelpPanelProps {
  width: number;
  lines: number;
}

/** Key list, one per line. */
export function HelpPanel({ width, lines }: HelpPanelProps) {
  const w = innerWidth(width);
  return (
    <Panel title="Keys" width={width} lines={lines} accent>
      {KEY_HELP.slice(0, lines).map(([k, d]) => (
        <Text key={k} wrap="truncate-end">
          <Text bold color="cyan">
            {k.padEnd(7)}
          </Text>
          {fit(d, Math.max(1, w - 7))}
        </Text>
      ))}
    </Panel>
  );
}
