// Pure: incidents per machine-hour across kernel releases (version order) as a line chart,
// one line for the filtered fleet and one per top signature; a release with no bundles
// under the filter breaks the line instead of drawing a zero it never measured.
import { el, num, text, tooltip } from '../report-html/markup.js';
import { chartFigure } from '../report-html/charts/chart-figure.js';
import { formatTick, linearScale, niceTicks } from '../report-html/charts/scale.js';
import { truncateLabel } from '../report-html/charts/bar-chart.js';
import type { KernelTrend } from './fleet-reader.js';

const WIDTH = 900;
const LEFT = 56;
const RIGHT = 20;
const TOP = 10;
const PLOT_H = 240;
const AXIS_H = 90;

/** The trend chart; `data-points` is the points drawn (series × releases with bundles). */
export function renderTrendChart(trend: KernelTrend): string {
  if (trend.releases.length === 0)
    return el('p', { class: 'empty' }, text('No bundles under this filter.'));
  const series = [
    { name: 'all kernel-code incidents', points: trend.fleet },
    ...trend.series.map((s) => ({ name: s.signature, points: s.points })),
  ];
  const max = Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.perMachineHour)));
  const ticks = niceTicks(max, 5);
  const y = linearScale([0, ticks[ticks.length - 1]!], [TOP + PLOT_H, TOP]);
  const n = trend.releases.length;
  const x = (i: number): number =>
    n === 1 ? (LEFT + WIDTH - RIGHT) / 2 : LEFT + ((WIDTH - LEFT - RIGHT) * i) / (n - 1);
  const parts: string[] = [];
  for (const t of ticks) {
    parts.push(el('line', { class: 'grid', x1: LEFT, x2: WIDTH - RIGHT, y1: y(t), y2: y(t) }));
    parts.push(
      el(
        'text',
        { class: 'tick', x: LEFT - 6, y: y(t) + 4, 'text-anchor': 'end' },
        text(formatTick(t)),
      ),
    );
  }
  trend.releases.forEach((r, i) => {
    parts.push(
      el(
        'text',
        {
          class: 'tick',
          x: x(i),
          y: TOP + PLOT_H + 14,
          'text-anchor': 'end',
          transform: `rotate(-35 ${num(x(i))} ${num(TOP + PLOT_H + 14)})`,
        },
        text(truncateLabel(r, 24)),
      ),
    );
  });
  let points = 0;
  series.forEach((s, si) => {
    const cls = `t${si % 8}`;
    let path = '';
    let pen = false;
    s.points.forEach((p, i) => {
      if (p.bundles === 0) {
        pen = false;
        return;
      }
      path += `${pen ? 'L' : 'M'}${num(x(i))} ${num(y(p.perMachineHour))}`;
      pen = true;
    });
    if (path) parts.push(el('path', { class: `trend ${cls}`, d: path }));
    s.points.forEach((p, i) => {
      if (p.bundles === 0) return;
      points++;
      parts.push(
        el(
          'circle',
          {
            class: `dot ${cls}`,
            cx: x(i),
            cy: y(p.perMachineHour),
            r: 3,
            'data-point': '',
            'data-release': p.release,
            'data-series': s.name,
          },
          tooltip(
            `${s.name} on ${p.release}: ${p.perMachineHour.toPrecision(3)}/machine-hour (${p.incidents} incidents, ${p.bundles} bundles)`,
          ),
        ),
      );
    });
  });
  parts.push(el('text', { class: 'axis-title', x: 4, y: TOP + 8 }, text('per machine-hour')));
  const legend = el(
    'div',
    { class: 'legend trend-legend' },
    ...series.map((s, si) =>
      el('span', { class: `key t${si % 8}` }, el('i', {}), text(truncateLabel(s.name, 60))),
    ),
  );
  return (
    legend +
    chartFigure(
      {
        id: 'trend',
        title: 'Incidents per machine-hour by kernel release',
        points,
        names: [],
        width: WIDTH,
        height: TOP + PLOT_H + AXIS_H,
      },
      parts,
    )
  );
}
