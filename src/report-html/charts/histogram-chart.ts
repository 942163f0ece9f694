// The headroom histogram: how much audio was still queued when the writer woke up, in
// buckets of microseconds. Bars near zero are near-misses; a second run (compare) is drawn
// as an outline over the first so both shapes stay visible.
import { el, text, tooltip } from '../markup.js';
import { chartFigure } from './chart-figure.js';
import { formatTick, linearScale, niceTicks } from './scale.js';

export interface HistogramSeries {
  name: string;
  /** One count per bucket (same length as the bucket list). */
  counts: readonly number[];
}

export interface HistogramInput {
  id: string;
  title: string;
  /** Bucket lower edges in µs, ascending; the last bucket is open-ended ("≥ x"). */
  bucketStartsUs: readonly number[];
  series: readonly HistogramSeries[];
  /** A reference line (e.g. one period in µs); null for none. */
  markerUs: number | null;
  markerLabel: string;
  /** What one count is ("seconds", "wake-ups"), the y-axis title. */
  countLabel: string;
  emptyText: string;
}

const WIDTH = 860;
const LEFT = 56;
const RIGHT = 16;
const TOP = 22; // room for the y-axis title above the plot
const PLOT_H = 180;

/** Label of bucket i ("500–1k µs", "≥ 10k µs"). */
export function bucketLabel(starts: readonly number[], i: number): string {
  const a = starts[i]!;
  const b = starts[i + 1];
  return b === undefined ? `≥ ${formatTick(a)} µs` : `${formatTick(a)}–${formatTick(b)} µs`;
}

/** Renders the histogram; each non-empty bar carries `data-point`. */
export function renderHistogramChart(input: HistogramInput): string {
  const { id, title, bucketStartsUs: starts, series } = input;
  const points = series.reduce((n, s) => n + s.counts.filter((c) => c > 0).length, 0);
  if (starts.length === 0 || points === 0) {
    return el(
      'figure',
      { class: 'chart chart-empty', 'data-chart': id, 'data-points': 0 },
      el('figcaption', {}, text(title)),
      el('p', { class: 'empty' }, text(input.emptyText)),
    );
  }
  const height = TOP + PLOT_H + 40;
  const n = starts.length;
  const slot = (WIDTH - LEFT - RIGHT) / n;
  const max = Math.max(1, ...series.flatMap((s) => s.counts));
  const yTicks = niceTicks(max, 4, 1);
  const y = linearScale([0, yTicks.at(-1)!], [TOP + PLOT_H, TOP]);
  const parts: string[] = [];
  for (const t of yTicks) {
    parts.push(
      el('line', { class: 'grid', x1: LEFT, x2: WIDTH - RIGHT, y1: y(t), y2: y(t) }),
      el(
        'text',
        { class: 'tick', x: LEFT - 6, y: y(t) + 4, 'text-anchor': 'end' },
        text(formatTick(t)),
      ),
    );
  }
  // Label every k-th bucket so labels never collide (about 70 px per label).
  const every = Math.max(1, Math.ceil(70 / slot));
  for (let i = 0; i < n; i += every) {
    parts.push(
      el(
        'text',
        {
          class: 'tick',
          x: LEFT + i * slot + slot / 2,
          y: TOP + PLOT_H + 16,
          'text-anchor': 'middle',
        },
        text(formatTick(starts[i]!)),
      ),
    );
  }
  parts.push(
    el(
      'text',
      { class: 'axis-title', x: WIDTH - RIGHT, y: TOP + PLOT_H + 32, 'text-anchor': 'end' },
      text('headroom, µs (bucket start)'),
    ),
    el('text', { class: 'axis-title', x: 4, y: TOP - 10 }, text(input.countLabel)),
  );
  series.forEach((s, si) => {
    s.counts.forEach((c, i) => {
      if (c <= 0) return;
      const pad = si === 0 ? 1 : 3;
      parts.push(
        el(
          'rect',
          {
            class: si === 0 ? 'hbar s0' : `hbar outline s${si}`,
            x: LEFT + i * slot + pad,
            y: y(c),
            width: Math.max(1, slot - 2 * pad),
            height: TOP + PLOT_H - y(c),
            'data-point': '',
            'data-series': s.name,
            'data-value': c,
          },
          tooltip(
            `${series.length > 1 ? `${s.name}: ` : ''}${bucketLabel(starts, i)}: ${c} ${input.countLabel}`,
          ),
        ),
      );
    });
  });
  if (input.markerUs !== null) {
    // Place the marker by interpolating inside the bucket that holds it.
    let mx = LEFT + n * slot;
    for (let i = 0; i < n; i++) {
      const a = starts[i]!;
      const b = starts[i + 1] ?? Infinity;
      if (input.markerUs >= a && input.markerUs < b) {
        const frac = Number.isFinite(b) ? (input.markerUs - a) / (b - a) : 0;
        mx = LEFT + (i + frac) * slot;
        break;
      }
    }
    parts.push(
      el('line', { class: 'marker', x1: mx, x2: mx, y1: TOP, y2: TOP + PLOT_H }),
      el('text', { class: 'marker-label', x: mx + 4, y: TOP + 12 }, text(input.markerLabel)),
    );
  }
  parts.push(
    el('line', { class: 'axis', x1: LEFT, x2: WIDTH - RIGHT, y1: TOP + PLOT_H, y2: TOP + PLOT_H }),
  );
  return chartFigure(
    { id, title, points, names: series.map((s) => s.name), width: WIDTH, height },
    parts,
  );
}
