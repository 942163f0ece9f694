// The terminal's size, updated on resize, so the layout re-plans when the window changes.
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

/** Fallback when the stream does not know its size (80×24, the classic terminal). */
export const DEFAULT_SIZE = { columns: 80, rows: 24 };

/** Columns and rows of Ink's stdout, re-read on every 'resize'. */
export function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({
    columns: stdout.columns > 0 ? stdout.columns : DEFAULT_SIZE.columns,
    rows: stdout.rows > 0 ? stdout.rows : DEFAULT_SIZE.rows,
  });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
