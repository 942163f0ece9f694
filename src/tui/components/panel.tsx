// The frame every dashboard panel uses: a titled top edge, side and bottom borders, and a
// fixed number of content lines (so the layout never jumps when content changes).
import type { ReactNode } from 'react';
import { Box, Text } from 'ink';

export interface PanelProps {
  title: string;
  /** Total width in columns, borders included. */
  width: number;
  /** Content lines (the frame adds two). */
  lines: number;
  /** Draws the frame in the accent colour (e.g. the stack panel when a new XRUN arrived). */
  accent?: boolean;
  children?: ReactNode;
}

/** Builds the top edge "┌ Title ───┐" at an exact width. */
export function titledEdge(title: string, width: number): string {
  const inner = Math.max(0, width - 2);
  const label = ` ${title} `.slice(0, Math.max(0, inner - 1));
  return `┌─${label}${'─'.repeat(Math.max(0, inner - 1 - label.length))}┐`.slice(
    0,
    Math.max(2, width),
  );
}

/** A framed panel; children are rendered one Text per line by the panels themselves. */
export function Panel({ title, width, lines, accent = false, children }: PanelProps) {
  const color = accent ? 'yellow' : 'gray';
  return (
    <Box flexDirection="column" width={width} flexShrink={0}>
      <Text color={color}>{titledEdge(title, width)}</Text>
      <Box
        flexDirection="column"
        width={width}
        height={lines + 1}
        borderStyle="single"
        borderTop={false}
        borderColor={color}
        paddingX={1}
        overflow="hidden"
      >
        {children}
      </Box>
    </Box>
  );
}

/** Usable text width inside a panel of `width` columns (borders and padding removed). */
export function innerWidth(width: number): number {
  return Math.max(1, width - 4);
}
