// Horizontal grouped bars: one row per category (an offender, a load phase, a percentile),
// one bar per series (a run; two when comparing). Offender bars, per-phase throughput and
// the headroom percentiles all use it, so they look and read the same.
import { el, text, tooltip } from '../markup.js';
import { chartFigure } from './chart-figure.js';
import { formatTick, linearScale, niceTicks } from './scale.js';

export interface BarSeries {
  name: string;
  /** One value per category; null = no data (no bar drawn, "n/a" shown). */
  values: readonly (number | null)[];
}

export interface BarChartInput {
  /** Stable id, used by `data-chart` (tests and styles find charts by it). */
  id: string;
  title: string;
  /** Axis caption, e.g. "MB/s", "XRUN events". */
  unit: string;
  categories: readonly string[];
  /** Full text per category for the tooltip (e.g. the offender's signature). */
  categoryDetails?: readonly string[];
  /** Machine key per category (e.g. the signature), set as `data-key` on its bars. */
  categoryKeys?: readonly string[];
  series: readonly BarSeries[];
  /** Formats a bar's value label (default: up to 3 significant digits). */
  format?: (v: number) => string;
  /** Counts: ticks at whole numbers only. */
  integer?: boolean;
  /** Shown instead of the chart when there are no categories. */
  emptyText: string;
}

const WIDTH = 860;
const LABEL_W = 280; // room for "__filemap_add_folio [ext4]"-sized names at 12px
const VALUE_W = 90; // room for the value label after the longest bar
const BAR_H = 14;
const GROUP_GAP = 10;
const AXIS_H = 28;
const MAX_LABEL_CHARS = 40;

/** Cuts long labels for the axis; the full text stays in the tooltip. */
export function truncateLabel(label: string, max = MAX_LABEL_CHARS): string {
  return label.length <= max ? label : `${label.slice(0, max - 1)}…`;
}

/** Renders the chart as a `<figure>` with inline SVG; each bar carries `data-point`. */
export function renderBarChart(input: BarChartInput): string {
  const { id, title, unit, categories, series } = input;
  const fmt = input.format ?? ((v: number) => formatTick(v));
  const points = series.reduce(
    (n, s) => n + s.values.filter((v) => v !== null && Number.isFinite(v)).length,
    0,
  );
  if (categories.length === 0) {
    return el(
      'figure',
      { class: 'chart chart-empty', 'data-chart': id, 'data-points': 0 },
      el('figcaption', {}, text(title)),
      el('p', { class: 'empty' }, text(input.emptyText)),
    );
  }
  const groupH = series.length * BAR_H + GROUP_GAP;
  const plotH = categories.length * groupH;
  const height = plotH + AXIS_H + 6;
  const max = Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0)));
  const ticks = niceTicks(max, 5, input.integer ? 1 : 0);
  const x = linearScale([0, ticks.at(-1)!], [LABEL_W, WIDTH - VALUE_W]);
  const parts: string[] = [];
  for (const t of ticks) {
    parts.push(
      el('line', { class: 'grid', x1: x(t), x2: x(t), y1: 0, y2: plotH }),
      el(
        'text',
        { class: 'tick', x: x(t), y: plotH + 16, 'text-anchor': 'middle' },
        text(formatTick(t)),
      ),
    );
  }
  parts.push(
    el(
      'text',
      { class: 'axis-title', x: LABEL_W - 8, y: plotH + 16, 'text-anchor': 'end' },
      text(unit),
    ),
  );
  categories.forEach((cat, ci) => {
    const y0 = ci * groupH;
    const detail = input.categoryDetails?.[ci] ?? cat;
    parts.push(
      el(
        'text',
        {
          class: 'cat',
          x: LABEL_W - 8,
          y: y0 + (series.length * BAR_H) / 2 + 4,
          'text-anchor': 'end',
        },
        tooltip(detail),
        text(truncateLabel(cat)),
      ),
    );
    series.forEach((s, si) => {
      const v = s.values[ci] ?? null;
      const y = y0 + si * BAR_H;
      if (v === null || !Number.isFinite(v)) {
        parts.push(el('text', { class: 'val na', x: LABEL_W + 4, y: y + BAR_H - 3 }, text('n/a')));
        return;
      }
      const w = Math.max(1, x(v) - LABEL_W);
      parts.push(
        el(
          'rect',
          {
            class: `bar s${si}`,
            x: LABEL_W,
            y: y + 1,
            width: w,
            height: BAR_H - 2,
            'data-point': '',
            'data-series': s.name,
            'data-category': cat,
            'data-key': input.categoryKeys?.[ci],
            'data-value': v,
          },
          tooltip(`${series.length > 1 ? `${s.name}: ` : ''}${detail}: ${fmt(v)} ${unit}`),
        ),
        el('text', { class: 'val', x: LABEL_W + w + 4, y: y + BAR_H - 3 }, text(fmt(v))),
      );
    });
  });
  return chartFigure(
    { id, title, points, names: series.map((s) => s.name), width: WIDTH, height },
    parts,
  );
}

/** The series key shown above overlaid charts (run A / run B). */
