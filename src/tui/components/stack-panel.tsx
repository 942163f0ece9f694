// The latest XRUN stack, normalised, with the offender's frame highlighted and the frames
// around it kept in view.
import { Text } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { findOffenderFrame, stackWindow } from '../stack-view.js';
import { fit } from '../text-graphics.js';
import { offenderLabel } from './offenders-panel.js';
import { Panel, innerWidth } from './panel.js';

export interface StackPanelProps {
  state: Pick<
    DashboardState,
    'latestEvent' | 'latestEventMatchedXrun' | 'kernelEvents' | 'capture'
  >;
  width: number;
  lines: number;
}

const CLASS_TEXT: Record<string, string> = {
  idle: 'interrupted the idle loop (not a kernel offender)',
  user: 'interrupted user space (not a kernel offender)',
  none: 'no interrupted context found in the dump',
};

/** What to say before the first stack: why there is none, or how to get one. */
export function stackHint(capture: StackPanelProps['state']['capture']): string {
  if (capture === null) return 'no XRUN stack yet';
  if (capture.mask === null) return 'no xrun_debug here: no kernel stacks';
  if (!capture.stackDumps) return 'stack dumps are off (press s)';
  return 'no XRUN stack yet';
}

/** Headline plus a window of frames around the offender. */
export function StackPanel({ state, width, lines }: StackPanelProps) {
  const w = innerWidth(width);
  const e = state.latestEvent;
  const rows = [];
  if (e === null) {
    rows.push(
      <Text key="none" dimColor wrap="truncate-end">
        {fit(stackHint(state.capture), w)}
      </Text>,
    );
  } else {
    const o = e.offender;
    const where = `${e.kind === 'xrun' ? '' : e.kind}${e.pcm ? ` ${e.pcm}` : ''}${e.sessionMs !== null ? ` @${(e.sessionMs / 1000).toFixed(1)}s` : ''}${e.phase ? ` ${e.phase}` : ''}`;
    rows.push(
      <Text key="h" wrap="truncate-end">
        {o.class === 'kernel' ? (
          <Text bold color="red">
            {offenderLabel({
              function: o.function,
              module: o.module,
              signature: o.signature ?? '?',
            })}
          </Text>
        ) : (
          <Text color="yellow">{CLASS_TEXT[o.class] ?? o.class}</Text>
        )}
        <Text dimColor>{` ${where}`}</Text>
      </Text>,
    );
    if (e.frames.length === 0) {
      rows.push(
        <Text key="nf" dimColor>
          {fit('(header only: no stack in this dump)', w)}
        </Text>,
      );
    } else {
      const hit = o.class === 'kernel' ? findOffenderFrame(e.frames, o.function) : -1;
      stackWindow(e.frames, hit, lines - 1).forEach((l, i) => {
        rows.push(
          l.hit ? (
            <Text key={i} inverse color="red" wrap="truncate-end">
              {fit(`▶ ${l.text}`, w)}
            </Text>
          ) : (
            <Text key={i} dimColor={l.elided} wrap="truncate-end">
              {fit(`  ${l.text}`, w)}
            </Text>
          ),
        );
      });
    }
  }
  const title =
    e === null
      ? 'Latest XRUN stack'
      : `Latest XRUN stack (${state.kernelEvents}${state.latestEventMatchedXrun !== null ? `, xrun #${state.latestEventMatchedXrun + 1}` : ''})`;
  return (
    <Panel title={title} width={width} lines={lines}>
      {rows.slice(0, lines)}
    </Panel>
  );
}
