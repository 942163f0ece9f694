// "Did you mean": the closest known name to a mistyped command, option or value, the way git
// and cargo suggest one. Pure; the distance is Damerau–Levenshtein (a swapped pair of
// letters, the commonest typo, counts as one edit).

/** Edit distance with adjacent transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to `typed`, or null when nothing is close enough to be a typo
 * (at most a third of the longer name, at least 1 edit allowed; a prefix also counts).
 * Exists so every "unknown X" message can offer one concrete correction.
 */
export function closestName(typed: string, known: readonly string[]): string | null {
  const t = typed.toLowerCase();
  let best: { name: string; d: number } | null = null;
  for (const name of known) {
    const n = name.toLowerCase();
    if (n === t) return name;
    const d = n.startsWith(t) && t.length >= 3 ? 1 : editDistance(t, n);
    const limit = Math.max(1, Math.floor(Math.max(t.length, n.length) / 3));
    if (d <= limit && (best === null || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}

/** ` (did you mean "x"?)` or the empty string: appended to "unknown …" messages. */
export function didYouMean(typed: string, known: readonly string[], prefix = ''): string {
  const c = closestName(typed, known);
  return c === null ? '' : ` (did you mean "${prefix}${c}"?)`;
}
