// The frame every chart shares: a <figure> with its caption, a legend when several runs are
// overlaid, and the SVG canvas. `data-chart` / `data-points` let tests count what was drawn.
import { el, text } from '../markup.js';

/** A legend of series names, coloured like the series (classes s0, s1, …). */
export function legend(names: readonly string[]): string {
  return el(
    'div',
    { class: 'legend' },
    ...names.map((n, i) => el('span', { class: `key s${i}` }, el('i', {}), text(n))),
  );
}

export interface ChartFrame {
  id: string;
  title: string;
  /** Data points drawn (exposed as data-points for tests and tools). */
  points: number;
  /** Series names; a legend is shown only when there is more than one. */
  names: readonly string[];
  width: number;
  height: number;
}

/** Wraps drawn SVG parts in the shared figure, caption, legend and canvas. */
export function chartFigure(frame: ChartFrame, parts: string[]): string {
  const { id, title, points, names, width, height } = frame;
  return el(
    'figure',
    { class: 'chart', 'data-chart': id, 'data-points': points },
    el('figcaption', {}, text(title)),
    names.length > 1 ? legend(names) : '',
    el(
      'svg',
      {
        xmlns: 'http://www.w3.org/2000/svg',
        viewBox: `0 0 ${width} ${height}`,
        width,
        height,
        role: 'img',
        'aria-label': title,
      },
      ...parts,
    ),
  );
}
