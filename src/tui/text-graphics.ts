// Character graphics for the dashboard: sparklines, horizontal bars, a progress bar.
// Pure string functions, so panels stay declarative and the drawing is unit-tested.

const SPARK = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/**
 * Folds `values` into at most `width` columns (summing neighbours, newest on the right) and
 * draws one block character per column; zero is a flat `▁`, the maximum a full `█`.
 */
export function sparkline(values: readonly number[], width: number): string {
  if (width <= 0 || values.length === 0) return '';
  const per = Math.max(1, Math.ceil(values.length / width));
  const cols: number[] = [];
  // Align groups to the newest value so the rightmost column is always "now".
  for (let end = values.length; end > 0 && cols.length < width; end -= per) {
    let sum = 0;
    for (let i = Math.max(0, end - per); i < end; i++) sum += values[i]!;
    cols.unshift(sum);
  }
  const max = Math.max(...cols);
  return cols
    .map((v) =>
      v <= 0 || max <= 0
        ? SPARK[0]!
        : SPARK[Math.max(1, Math.round((v / max) * (SPARK.length - 1)))]!,
    )
    .join('');
}

/** A bar of `width` cells filled in proportion to value/max (eighth-cell resolution). */
export function hbar(value: number, max: number, width: number): string {
  if (width <= 0) return '';
  if (!(max > 0) || !(value > 0)) return ' '.repeat(width);
  const eighths = Math.round(Math.min(1, value / max) * width * 8);
  const full = Math.floor(eighths / 8);
  const rest = eighths % 8;
  const partial = rest > 0 ? ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'][rest]! : '';
  return ('█'.repeat(full) + partial).padEnd(width, ' ');
}

/** `[█████·····]`-style progress of done/total, `width` cells inside the brackets. */
export function progressBar(done: number, total: number, width: number): string {
  if (width <= 0) return '';
  const f = total > 0 ? Math.max(0, Math.min(1, done / total)) : 0;
  const n = Math.round(f * width);
  return '█'.repeat(n) + '░'.repeat(width - n);
}

/** Cuts text to `width` characters with an ellipsis (Ink truncates too, but widths must add up). */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** Milliseconds as m:ss (or h:mm:ss) for the elapsed clock. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Frames at a rate as milliseconds, "1.33 ms". */
export function framesToMs(frames: number, rateHz: number): string {
  if (!(rateHz > 0)) return '? ms';
  return `${Number(((frames / rateHz) * 1000).toFixed(2))} ms`;
}

/** Microseconds for a narrow column: "850 µs", "1.2 ms". */
export function shortUs(us: number): string {
  if (us >= 10_000) return `${Math.round(us / 1000)} ms`;
  if (us >= 1000) return `${(us / 1000).toFixed(1)} ms`;
  return `${Math.round(us)} µs`;
}
