// The whole dashboard for one state and one terminal size. Stateless: the live app (app.tsx)
// owns the state and the keys; tests render this directly at fixed sizes.
import type { ReactElement } from 'react';
import { Box } from 'ink';
import type { DashboardState } from '../dashboard-state.js';
import { planLayout, type PanelSlot } from '../layout.js';
import { CapturePanel } from './capture-panel.js';
import { Header } from './header.js';
import { HeadroomPanel } from './headroom-panel.js';
import { HelpPanel } from './help-panel.js';
import { LoadPanel } from './load-panel.js';
import { OffendersPanel } from './offenders-panel.js';
import { StackPanel } from './stack-panel.js';
import { StreamPanel } from './stream-panel.js';
import { XrunPanel } from './xrun-panel.js';

export interface DashboardProps {
  state: DashboardState;
  columns: number;
  rows: number;
  showHelp?: boolean;
}

function renderSlot(slot: PanelSlot, state: DashboardState, width: number): ReactElement {
  const props = { state, width, lines: slot.lines };
  switch (slot.id) {
    case 'stream':
      return <StreamPanel key={slot.id} {...props} />;
    case 'xruns':
      return <XrunPanel key={slot.id} {...props} />;
    case 'headroom':
      return <HeadroomPanel key={slot.id} {...props} />;
    case 'capture':
      return <CapturePanel key={slot.id} {...props} />;
    case 'load':
      return <LoadPanel key={slot.id} {...props} />;
    case 'offenders':
      return <OffendersPanel key={slot.id} {...props} />;
    case 'stack':
      return <StackPanel key={slot.id} {...props} />;
  }
}

/** Header plus one or two columns of panels, sized by planLayout. */
export function Dashboard({ state, columns, rows, showHelp = false }: DashboardProps) {
  const layout = planLayout(columns, rows);
  const rightLines = layout.right
    ? layout.right.panels.reduce((n, p) => n + p.lines + 2, 0) - 2
    : 0;
  return (
    <Box flexDirection="column" width={layout.columns}>
      <Header state={state} width={layout.columns} />
      <Box flexDirection="row">
        <Box flexDirection="column" width={layout.left.width}>
          {showHelp && !layout.right ? (
            <HelpPanel
              width={layout.left.width}
              lines={Math.max(1, layout.left.panels.reduce((n, p) => n + p.lines + 2, 0) - 2)}
            />
          ) : (
            layout.left.panels.map((p) => renderSlot(p, state, layout.left.width))
          )}
        </Box>
        {layout.right ? (
          <Box flexDirection="column" width={layout.right.width}>
            {showHelp ? (
              <HelpPanel width={layout.right.width} lines={rightLines} />
            ) : (
              layout.right.panels.map((p) => renderSlot(p, state, layout.right!.width))
            )}
          </Box>
        ) : null}
      </Box>
    </Box>
  );
}
