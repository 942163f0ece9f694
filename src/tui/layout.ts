// Where each panel goes for a terminal size. Pure, so 80×24 and 120×40 are tested without a
// terminal. The whole frame stays one row shorter than the terminal: when Ink's output is as
// tall as the screen it clears and redraws everything each frame, which flickers.

export type PanelId = 'stream' | 'xruns' | 'headroom' | 'capture' | 'load' | 'offenders' | 'stack';

export interface PanelSlot {
  id: PanelId;
  /** Content lines (the frame adds two: the titled top edge and the bottom edge). */
  lines: number;
}

export interface DashboardLayout {
  columns: number;
  rows: number;
  /** Header + status line above the panels. */
  headerLines: number;
  /** One column (narrow terminals) or two. */
  left: { width: number; panels: PanelSlot[] };
  right: { width: number; panels: PanelSlot[] } | null;
}

/** Rows taken by a panel's frame (top edge with the title, bottom edge). */
export const FRAME_LINES = 2;
/** Below this width the two columns get too narrow for function names: one column. */
export const TWO_COLUMN_MIN = 72;
const HEADER_LINES = 2;

function framed(slots: PanelSlot[]): number {
  return slots.reduce((n, s) => n + s.lines + FRAME_LINES, 0);
}

/** Drops panels from the end of a column's priority list until it fits `height` rows. */
function fitColumn(slots: PanelSlot[], height: number): PanelSlot[] {
  const out = [...slots];
  while (out.length > 1 && framed(out) > height) out.pop();
  if (out.length === 1 && framed(out) > height) {
    out[0] = { ...out[0]!, lines: Math.max(1, height - FRAME_LINES) };
  }
  return out;
}

/** Lays the panels out for `columns` × `rows` (defaults to 80×24 for unknown sizes). */
export function planLayout(columns: number, rows: number): DashboardLayout {
  const cols = Number.isFinite(columns) && columns > 0 ? Math.floor(columns) : 80;
  const rws = Number.isFinite(rows) && rows > 0 ? Math.floor(rows) : 24;
  const body = Math.max(FRAME_LINES + 1, rws - HEADER_LINES - 1);
  if (cols < TWO_COLUMN_MIN) {
    // One column, most telling panels first.
    const stackLines = Math.max(
      3,
      body -
        framed([
          { id: 'xruns', lines: 3 },
          { id: 'load', lines: 3 },
          { id: 'offenders', lines: 3 },
        ]) -
        FRAME_LINES,
    );
    return {
      columns: cols,
      rows: rws,
      headerLines: HEADER_LINES,
      left: {
        width: cols,
        panels: fitColumn(
          [
            { id: 'xruns', lines: 3 },
            { id: 'load', lines: 3 },
            { id: 'offenders', lines: 3 },
            { id: 'stack', lines: Math.min(stackLines, 12) },
          ],
          body,
        ),
      },
      right: null,
    };
  }
  const leftWidth = Math.max(34, Math.min(56, Math.round(cols * 0.42)));
  const left = fitColumn(
    [
      { id: 'xruns', lines: 3 },
      { id: 'stream', lines: 4 },
      { id: 'headroom', lines: 4 },
      { id: 'capture', lines: 2 },
    ],
    body,
  );
  // Right column: the load phase, then offenders and the stack share what is left (the
  // stack gets the larger part: it is the evidence).
  const rest = Math.max(0, body - framed([{ id: 'load', lines: 3 }]) - 2 * FRAME_LINES);
  const offenders = Math.max(2, Math.min(10, Math.floor(rest * 0.4)));
  const stack = Math.max(2, rest - offenders);
  const right = fitColumn(
    [
      { id: 'load', lines: 3 },
      { id: 'offenders', lines: offenders },
      { id: 'stack', lines: stack },
    ],
    body,
  );
  return {
    columns: cols,
    rows: rws,
    headerLines: HEADER_LINES,
    left: { width: leftWidth, panels: left },
    right: { width: cols - leftWidth, panels: right },
  };
}
