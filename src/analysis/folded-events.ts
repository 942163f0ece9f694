// analyze --format folded: the analyzer's events as collapsed stacks. An event's frames are
// innermost first; the folded line is root first. Unreliable ("?") stack words are left out
// (they are leftovers on the stack, not calls); inline frames stay (they are real calls).
import type { Writable } from 'node:stream';
import {
  streamAnalyzeFiles,
  type AnalyzeFilesIo,
  type AnalyzeFilesOptions,
} from './analyze-files.js';
import { createFoldedCounter, type FoldedCounter } from './folded.js';
import type { StreamedAnalysis, XrunEvent } from './types.js';

/** The root-first frame names of one event: "func" or "func [module]". */
export function eventFoldedFrames(ev: XrunEvent): string[] {
  const names: string[] = [];
  for (const f of ev.frames) {
    if (!f.reliable) continue;
    names.push(f.module ? `${f.function} [${f.module}]` : f.function);
  }
  return names.reverse();
}

/** Adds one event to a folded counter. */
export function addEventToFolded(counter: FoldedCounter, ev: XrunEvent): void {
  counter.add(eventFoldedFrames(ev));
}

/** Analyzes the inputs and writes their folded stacks to `out`; exists for analyze --format folded. */
export async function writeFoldedAnalysis(
  inputs: string[] | '-',
  io: AnalyzeFilesIo & { stdout: Writable },
  options: AnalyzeFilesOptions & { onEvent?: (ev: XrunEvent) => void },
): Promise<StreamedAnalysis> {
  const counter = createFoldedCounter();
  const also = options.onEvent;
  const r = await streamAnalyzeFiles(inputs, io, {
    ...options,
    onEvent: (ev) => {
      addEventToFolded(counter, ev);
      also?.(ev);
    },
  });
  for (const line of counter.lines()) io.stdout.write(line);
  if (counter.overflowed > 0) {
    r.warnings.push(
      `${counter.overflowed} events had stacks beyond the first ${counter.lines().length - 1} distinct ones; they are counted under "[other stacks]"`,
    );
  }
  return r;
}
