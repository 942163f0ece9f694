// Which frames of an XRUN stack fit in the stack panel. A dump lists the detector first
// (period interrupt → ALSA core → printer) and the interrupted code after the IRQ boundary;
// the offender is what matters, so the window is centred on it and the rest is summarised.

export interface StackLine {
  text: string;
  /** The offender's frame (highlighted). */
  hit: boolean;
  /** A summary line ("… 9 frames above") rather than a frame. */
  elided: boolean;
}

/** Index of the offender's frame: exact function name, or "function [module]". */
export function findOffenderFrame(frames: readonly string[], fn: string | null): number {
  if (fn === null) return -1;
  return frames.findIndex((f) => f === fn || f.startsWith(`${fn} `));
}

/** Picks at most `lines` lines: frames around the offender plus "… N frames" summaries. */
export function stackWindow(frames: readonly string[], hit: number, lines: number): StackLine[] {
  if (lines <= 0) return [];
  const line = (i: number): StackLine => ({ text: frames[i]!, hit: i === hit, elided: false });
  if (frames.length <= lines) return frames.map((_, i) => line(i));
  if (lines === 1)
    return hit >= 0 ? [line(hit)] : [{ text: `${frames.length} frames`, hit: false, elided: true }];
  // Without an offender: the first frames, and how many more.
  if (hit < 0) {
    return [
      ...frames.slice(0, lines - 1).map((_, i) => line(i)),
      { text: `… ${frames.length - (lines - 1)} more frames`, hit: false, elided: true },
    ];
  }
  // Reserve summary lines only where frames are actually cut off.
  let start = Math.max(0, hit - Math.floor((lines - 1) / 3));
  for (;;) {
    const above = start > 0 ? 1 : 0;
    const room = lines - above;
    let end = Math.min(frames.length, start + room);
    let below = 0;
    if (end < frames.length) {
      below = 1;
      end -= 1;
    }
    if (end <= hit) {
      if (start < hit) {
        start += 1;
        continue;
      }
      // Two lines or fewer: keep the offender, drop the "below" summary.
      end = hit + 1;
      below = 0;
    }
    const out: StackLine[] = [];
    if (above) out.push({ text: `… ${start} frames above`, hit: false, elided: true });
    for (let i = start; i < end; i++) out.push(line(i));
    if (below)
      out.push({ text: `… ${frames.length - end} frames below`, hit: false, elided: true });
    return out;
  }
}
