// Collapsed ("folded") stacks: one line per distinct stack, `root;…;leaf count`, the input
// flamegraph.pl, speedscope, inferno and Perfetto read. Pure. Frame text comes from kernel
// logs and bundles anyone can write, so it is made safe here, once, for the format:
//   ";" (the frame separator)                          → "_"
//   C0/C1 controls (newline, CR, tab, ESC…), DEL,
//   U+2028/U+2029 line separators, bidi overrides      → "?"
//   whitespace runs → one space, trimmed; empty        → "[unknown]"
// A frame can then neither split a line nor add a frame, and the count stays the last word.

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One frame's text made safe for a folded line (see the rules above). */
export function foldedFrame(text: string): string {
  const safe = text.replace(/;/g, '_').replace(UNSAFE, '?').replace(/\s+/g, ' ').trim();
  return safe === '' ? '[unknown]' : safe;
}

/** Stand-in frame for an event that printed no stack, so every event is counted. */
export const NO_STACK = '[no stack]';

/** Counts stacks by their folded text; bounded so hostile input cannot grow it without end. */
export interface FoldedCounter {
  /** Adds `count` samples of a stack given root first (frames are escaped here). */
  add(rootFirst: readonly string[], count?: number): void;
  /** Stacks not kept because the distinct-stack bound was reached (counted under OTHER). */
  readonly overflowed: number;
  /** The folded lines, sorted (deterministic, as flamegraph.pl sorts), each ending in \n. */
  lines(): string[];
}

/** Frame that collects the stacks beyond the bound. */
export const OTHER_STACKS = '[other stacks]';

/** Default bound on distinct stacks kept (a real log has tens to thousands). */
export const MAX_DISTINCT_STACKS = 100_000;

/** Makes a counter of folded stacks; exists so analyze and aggregate fold alike. */
export function createFoldedCounter(maxDistinct = MAX_DISTINCT_STACKS): FoldedCounter {
  const counts = new Map<string, number>();
  let overflowed = 0;
  return {
    add(rootFirst, count = 1) {
      const frames = rootFirst.length === 0 ? [NO_STACK] : rootFirst.map(foldedFrame);
      let key = frames.join(';');
      if (!counts.has(key) && counts.size >= maxDistinct) {
        overflowed++;
        key = OTHER_STACKS;
      }
      counts.set(key, (counts.get(key) ?? 0) + count);
    },
    get overflowed() {
      return overflowed;
    },
    lines() {
      return [...counts.keys()]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((k) => `${k} ${counts.get(k)!}\n`);
    },
  };
}
