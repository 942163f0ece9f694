// Pure: aggregated offender stacks → an icicle graph (a flame graph drawn top-down) as
// server-side SVG: the outermost frame (the syscall entry, the interrupt) on top, the
// frames that ran when the audio interrupt found the buffer late further down. Width is
// incidents. No script: each box's tooltip is SVG's own <title>.
import { el, num, text, tooltip } from '../report-html/markup.js';
import { chartFigure } from '../report-html/charts/chart-figure.js';
import type { FlameStacks } from './fleet-reader.js';

export interface FlameNode {
  name: string;
  count: number;
  children: Map<string, FlameNode>;
}

const WIDTH = 960;
const ROW_H = 17;
const CHAR_W = 6.6;
const MIN_BOX_W = 0.8;
const MAX_DEPTH = 64;

/** Merges stacks (innermost first) into one tree rooted at the outermost frames. */
export function flameTree(data: FlameStacks): FlameNode {
  const root: FlameNode = { name: 'all', count: 0, children: new Map() };
  for (const s of data.stacks) {
    root.count += s.count;
    let node = root;
    for (const frame of [...s.frames].reverse().slice(0, MAX_DEPTH)) {
      let child = node.children.get(frame);
      if (!child) {
        child = { name: frame, count: 0, children: new Map() };
        node.children.set(frame, child);
      }
      child.count += s.count;
      node = child;
    }
  }
  if (data.otherCount > 0) {
    root.count += data.otherCount;
    root.children.set('(other stacks)', {
      name: '(other stacks)',
      count: data.otherCount,
      children: new Map(),
    });
  }
  return root;
}

function colour(name: string): string {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `k${h % 6}`;
}

/** The icicle SVG in the report's chart frame; `data-points` is the boxes drawn. */
export function renderFlameGraph(data: FlameStacks, title: string): string {
  const root = flameTree(data);
  if (root.count === 0) return el('p', { class: 'empty' }, text('No stacks under this filter.'));
  const boxes: string[] = [];
  let depth = 0;
  const draw = (node: FlameNode, x: number, w: number, level: number): void => {
    depth = Math.max(depth, level + 1);
    const pct = (100 * node.count) / root.count;
    const label = w > 3 * CHAR_W ? node.name.slice(0, Math.floor((w - 6) / CHAR_W)) : '';
    boxes.push(
      el(
        'g',
        { class: 'flame', 'data-point': '', 'data-frame': node.name, 'data-count': node.count },
        tooltip(`${node.name} — ${node.count} incidents (${pct.toFixed(1)} %)`),
        el('rect', {
          class: level === 0 ? 'k-idle' : colour(node.name),
          x,
          y: level * ROW_H,
          width: Math.max(w - 0.5, 0.3),
          height: ROW_H - 1,
        }),
        label ? el('text', { x: num(x + 3), y: level * ROW_H + 12 }, text(label)) : '',
      ),
    );
    let cx = x;
    const kids = [...node.children.values()].sort(
      (a, b) => b.count - a.count || (a.name < b.name ? -1 : 1),
    );
    for (const k of kids) {
      const kw = (w * k.count) / node.count;
      if (kw >= MIN_BOX_W) draw(k, cx, kw, level + 1);
      cx += kw;
    }
  };
  draw(root, 0, WIDTH, 0);
  return chartFigure(
    { id: 'flame', title, points: boxes.length, names: [], width: WIDTH, height: depth * ROW_H },
    boxes,
  );
}
