// The xrun timeline: cumulative xruns over session time, one step line per run, with every
// userspace xrun as a dot and every kernel XRUN dump as a tick, over bands that show which
// load phase was running. Two runs (compare) share the time axis and are overlaid.
import { el, num, text, tooltip } from '../markup.js';
import { chartFigure } from './chart-figure.js';
import { formatTick, linearScale, niceTicks } from './scale.js';

export interface TimelinePhase {
  name: string;
  kind: string;
  startMs: number;
  endMs: number;
  xruns: number;
}

export interface TimelineRun {
  name: string;
  phases: readonly TimelinePhase[];
  /** Userspace xrun times, ms since session start. */
  xrunsMs: readonly number[];
  /**
   * Cumulative count at each of `xrunsMs` (already sorted) when the times are a thinned
   * sample of many more; default: the n-th time is the n-th xrun.
   */
  xrunCounts?: readonly number[];
  /** Kernel XRUN dumps placed on the session clock (ms); events without a time are left out. */
  kernelEventsMs: readonly number[];
  durationMs: number;
}

const WIDTH = 860;
const LEFT = 48;
const RIGHT = 16;
const PLOT_H = 170;
const TOP = 22; // room for the y-axis title above the plot
const STRIP_H = 18; // one phase strip per run: tall enough for an 11px phase name
const KERNEL_ROW_H = 14;

// Phase kinds get stable colours, so "write" is the same colour in every report: the
// known load kinds have fixed ones, anything else (a custom phase name) is hashed.
const KIND_CLASSES = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];
const KNOWN_KINDS: Record<string, string> = {
  idle: 'k-idle',
  write: 'k0',
  fsync: 'k1',
  metadata: 'k2',
  read: 'k3',
  memory: 'k4',
  cpu: 'k5',
  fork: 'k1',
  external: 'k3',
};

/** Picks a stable colour class for a load kind ("idle" is always neutral). */
export function kindClass(kind: string): string {
  const known = KNOWN_KINDS[kind];
  if (known) return known;
  let h = 0;
  for (const c of kind) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return KIND_CLASSES[h % KIND_CLASSES.length]!;
}

/** Wording for timelines of other things than a session's xruns (a log's XRUN events). */
export interface TimelineOptions {
  title?: string;
  /** What one dot is ("xrun", "XRUN event"). */
  pointLabel?: string;
}

/** Renders the timeline figure; dots (xruns) and ticks (kernel events) carry `data-point`. */
export function renderTimelineChart(
  runs: readonly TimelineRun[],
  options: TimelineOptions = {},
): string {
  const id = 'timeline';
  const title =
    options.title ??
    (runs.length > 1 ? 'Xruns over time, both runs' : 'Xruns over time and load phases');
  const what = options.pointLabel ?? 'xrun';
  const points = runs.reduce((n, r) => n + r.xrunsMs.length + r.kernelEventsMs.length, 0);
  const durationMs = Math.max(1, ...runs.map((r) => r.durationMs));
  const maxCount = Math.max(
    1,
    ...runs.map((r) => r.xrunCounts?.[r.xrunCounts.length - 1] ?? r.xrunsMs.length),
  );
  const stripsTop = TOP + PLOT_H + 24;
  const kernelTop = stripsTop + runs.length * STRIP_H + 4;
  const anyKernel = runs.some((r) => r.kernelEventsMs.length > 0);
  const height = kernelTop + (anyKernel ? runs.length * KERNEL_ROW_H + 4 : 0) + 4;
  const xTicksS = niceTicks(durationMs / 1000, 8);
  const x = linearScale([0, xTicksS.at(-1)! * 1000], [LEFT, WIDTH - RIGHT]);
  const yTicks = niceTicks(maxCount, 4, 1);
  const y = linearScale([0, yTicks.at(-1)!], [TOP + PLOT_H, TOP]);
  const parts: string[] = [];

  // Phase bands behind the plot (first run's phases) and one labelled strip per run.
  for (const p of runs[0]?.phases ?? []) {
    parts.push(
      el('rect', {
        class: `band ${kindClass(p.kind)}`,
        x: x(p.startMs),
        y: TOP,
        width: Math.max(0, x(p.endMs) - x(p.startMs)),
        height: PLOT_H,
      }),
    );
  }
  runs.forEach((r, ri) => {
    const sy = stripsTop + ri * STRIP_H;
    for (const p of r.phases) {
      const w = Math.max(0, x(p.endMs) - x(p.startMs));
      parts.push(
        el(
          'g',
          { class: 'phase' },
          el(
            'rect',
            {
              class: `strip ${kindClass(p.kind)}`,
              x: x(p.startMs),
              y: sy,
              width: w,
              height: STRIP_H - 3,
            },
            tooltip(
              `${runs.length > 1 ? `${r.name}: ` : ''}${p.name} (${p.kind}) ` +
                `${formatTick(p.startMs / 1000)}–${formatTick(p.endMs / 1000)} s, ${p.xruns} xrun${p.xruns === 1 ? '' : 's'}`,
            ),
          ),
          w > 40
            ? el('text', { class: 'strip-label', x: x(p.startMs) + 4, y: sy + 11 }, text(p.name))
            : '',
        ),
      );
    }
    if (runs.length > 1) {
      parts.push(
        el(
          'text',
          { class: 'tick', x: LEFT - 6, y: sy + 11, 'text-anchor': 'end' },
          text(`${ri === 0 ? 'A' : 'B'}`),
        ),
      );
    }
  });

  // Axes and grid.
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
  for (const t of xTicksS) {
    parts.push(
      el(
        'text',
        {
          class: 'tick',
          x: x(t * 1000),
          y: TOP + PLOT_H + 16,
          // The last label ends at the axis end, so it is never cut off.
          'text-anchor': t === xTicksS.at(-1) ? 'end' : 'middle',
        },
        text(`${formatTick(t)}s`),
      ),
    );
  }
  parts.push(
    el('text', { class: 'axis-title', x: 4, y: TOP - 10 }, text(`${what}s (cumulative)`)),
    el('line', { class: 'axis', x1: LEFT, x2: WIDTH - RIGHT, y1: TOP + PLOT_H, y2: TOP + PLOT_H }),
  );

  // Cumulative xruns: a step line and a dot per xrun.
  runs.forEach((r, ri) => {
    const counts = r.xrunCounts;
    const times = counts ? [...r.xrunsMs] : [...r.xrunsMs].sort((a, b) => a - b);
    const nth = (i: number): number => counts?.[i] ?? i + 1;
    let d = `M${num(x(0))},${num(y(0))}`;
    times.forEach((t, i) => {
      d += ` H${num(x(t))} V${num(y(nth(i)))}`;
    });
    d += ` H${num(x(r.durationMs))}`;
    parts.push(el('path', { class: `step s${ri}`, d }));
    times.forEach((t, i) => {
      parts.push(
        el(
          'circle',
          {
            class: `dot s${ri}`,
            cx: x(t),
            cy: y(nth(i)),
            r: 3.5,
            'data-point': '',
            'data-kind': 'xrun',
            'data-series': r.name,
          },
          tooltip(
            `${runs.length > 1 ? `${r.name}: ` : ''}${what} #${nth(i)} at ${formatTick(t / 1000)} s`,
          ),
        ),
      );
    });
  });

  // Kernel XRUN dumps on their own row per run.
  if (anyKernel) {
    parts.push(
      el(
        'text',
        { class: 'tick', x: LEFT - 6, y: kernelTop + 10, 'text-anchor': 'end' },
        text('kernel'),
      ),
    );
    runs.forEach((r, ri) => {
      const ky = kernelTop + ri * KERNEL_ROW_H;
      for (const t of r.kernelEventsMs) {
        parts.push(
          el(
            'rect',
            {
              class: `kev s${ri}`,
              x: x(t) - 1,
              y: ky,
              width: 2,
              height: KERNEL_ROW_H - 3,
              'data-point': '',
              'data-kind': 'kernel-event',
              'data-series': r.name,
            },
            tooltip(
              `${runs.length > 1 ? `${r.name}: ` : ''}kernel XRUN dump at ${formatTick(t / 1000)} s`,
            ),
          ),
        );
      }
    });
  }

  return chartFigure(
    { id, title, points, names: runs.map((r) => r.name), width: WIDTH, height },
    parts,
  );
}
