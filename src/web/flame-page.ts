// Pure: the flame-graph page: every stack of the selected offender classes under the filter.
import { el, text } from '../report-html/markup.js';
import type { FilterValues, FlameStacks, FleetFilter } from './fleet-reader.js';
import { renderFlameGraph } from './flame-graph.js';
import { filterForm, renderWebPage } from './web-page.js';

/** The whole flame-graph page. */
export function renderFlamePage(
  flame: FlameStacks,
  filter: FleetFilter,
  values: FilterValues,
): string {
  return renderWebPage('Flame graph', 'flame', filter, [
    el('h1', {}, text('Aggregated offender stacks')),
    el(
      'p',
      { class: 'sub' },
      text(
        `${flame.total} incidents; outermost frame on top, width = incidents; hover a box for its count.`,
      ),
    ),
    filterForm('/flame', filter, values),
    renderFlameGraph(flame, 'Offender stacks (icicle)'),
  ]);
}
