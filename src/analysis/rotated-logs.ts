// Rotated logs named on one command line (`kern.log kern.log.1 kern.log.2.gz`) are pieces of
// one log, newest first by number. `analyze` reads its inputs as one line stream (a dump cut
// at a rotation goes on in the next piece), so the pieces must come oldest first whatever
// order the user typed them in: `kern.log.2.gz`, `kern.log.1`, `kern.log`.
import { basename, dirname } from 'node:path';

// name.N or name.N.gz (logrotate's numbered scheme); name itself is piece 0 (the newest).
const ROTATED_RE = /^(.+?)\.(\d{1,4})(?:\.gz)?$/;

interface Piece {
  family: string;
  age: number;
}

function pieceOf(path: string): Piece {
  const name = basename(path);
  const m = ROTATED_RE.exec(name);
  const dir = dirname(path);
  if (m) return { family: `${dir}\u0000${m[1]!}`, age: Number(m[2]) };
  return { family: `${dir}\u0000${name.replace(/\.gz$/, '')}`, age: 0 };
}

/**
 * Puts the pieces of each rotated log oldest first (highest number first, the unnumbered
 * file last), each family where its first piece was named; every other input keeps its place.
 */
export function orderRotatedLogs(paths: readonly string[]): string[] {
  const pieces = paths.map((p) => (p === '-' ? null : pieceOf(p)));
  const members = new Map<string, number[]>();
  pieces.forEach((pc, i) => {
    if (!pc) return;
    const list = members.get(pc.family);
    if (list) list.push(i);
    else members.set(pc.family, [i]);
  });
  const out: string[] = [];
  const placed = new Set<string>();
  pieces.forEach((pc, i) => {
    if (!pc) {
      out.push(paths[i]!);
      return;
    }
    if (placed.has(pc.family)) return;
    placed.add(pc.family);
    const idx = [...members.get(pc.family)!];
    // Stable for equal ages (the same file named twice stays as typed).
    idx.sort((x, y) => pieces[y]!.age - pieces[x]!.age || x - y);
    for (const j of idx) out.push(paths[j]!);
  });
  return out;
}
