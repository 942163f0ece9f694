// A piece of a rotated log can begin in the middle of a stack dump: the header and the first
// frames are at the end of the older piece. When that older piece came before it on the
// command line the record goes on across the two; when it did not (the pieces in the wrong
// order, or only the newer one given), the frames at the start belong to no header and that
// event loses them silently. This finds such a start, so `analyze` can say so.
import { parseLogLine } from '../kernel/line-anatomy.js';
import { classifyStackLine } from '../kernel/stack-line.js';
import { mayBeAlsaHeader } from './headers.js';

/** Lines looked at from the start of an input: a cut dump shows its frames at once. */
const LOOK_LINES = 40;

/**
 * How many stack-frame lines an input starts with before any line that could open a record
 * (a header), from its first bytes; 0 when it starts with anything else.
 */
export function leadingFrameLines(head: string): number {
  const lines = head.split(/\r\n|\r|\n/).slice(0, LOOK_LINES);
  // The last line of the head may be cut mid-line.
  if (lines.length === LOOK_LINES || !head.endsWith('\n')) lines.pop();
  let frames = 0;
  for (const raw of lines) {
    const line = parseLogLine(raw);
    if (line.foreign) continue;
    if (mayBeAlsaHeader(line.body)) return frames;
    const kind = classifyStackLine(line.body).kind;
    if (kind === 'frames' || kind === 'regs' || kind === 'partial' || kind === 'module-tail')
      frames++;
    else if (kind === 'empty' || kind === 'skip' || kind === 'context') continue;
    else return frames;
  }
  return frames;
}
