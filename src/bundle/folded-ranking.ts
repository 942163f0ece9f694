// aggregate --format folded: the fleet ranking as collapsed stacks. The store keeps distinct
// stacks and the ranking one example stack per signature, so each line is a signature's
// example stack weighted by its incident count (not every stack of every event). With --by,
// the group key (kernel release, driver, ...) is the root frame. Bundle frame text is
// innermost first ("func [module]", "? func", "<IRQ>", "RIP: func"); context markers,
// unreliable "?" words and user-space RIP lines are left out, "RIP: " is dropped from a
// kernel one. Escaping of hostile frame text: createFoldedCounter (src/analysis/folded.ts).
import { createFoldedCounter } from '../analysis/folded.js';
import type { FleetRanking } from './store.js';

/** Root-first frame names of one bundle stack (see the rules above). */
export function bundleStackRootFirst(frames: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of frames) {
    if (/^<\/?[A-Z]+>$/.test(f) || f.startsWith('? ')) continue;
    if (f.startsWith('RIP: ')) {
      if (/^RIP: [0-9a-f]{4}:/i.test(f)) continue;
      out.push(f.slice(5));
    } else out.push(f);
  }
  return out.reverse();
}

/** The ranking's folded lines, sorted; exists for aggregate --format folded. */
export function rankingFoldedLines(ranking: FleetRanking): string[] {
  const counter = createFoldedCounter();
  for (const g of ranking.groups) {
    const root = ranking.by !== null && g.key !== null ? [g.key] : [];
    for (const s of g.signatures) {
      counter.add([...root, ...bundleStackRootFirst(s.exampleStack)], s.incidents);
    }
  }
  return counter.lines();
}
