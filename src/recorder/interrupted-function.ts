// The code a late period interrupt hit, from the ftrace stack of its irq_handler_entry (the
// recorder's `stacktrace if irq==N` trigger): the same IRQ-boundary and offender rules as the
// stack-only analysis (src/analysis/classify.ts), so both name the same function.
import { classifyStack, type StackItem } from '../analysis/classify.js';
import type { RuleSet } from '../analysis/rules.js';
import { classifyStackLine } from '../kernel/stack-line.js';

/** The code an interrupt found running, as the stack analysis names it. */
export interface InterruptedCode {
  /** The offender function ("xrunhunt_inject_unlock"), or null when the stack names none. */
  function: string | null;
  module: string | null;
  /** The offender class of the stack analysis (kernel, idle, user, none). */
  cls: string;
  /** The frames from the offender outwards (innermost first), for the part's stack. */
  frames: string[];
}

/** Turns ftrace ` => ` frames (innermost first) into the analysis's stack items. */
export function ftraceStackItems(frames: readonly string[]): StackItem[] {
  const items: StackItem[] = [];
  for (const f of frames) {
    const line = classifyStackLine(`=> ${f}`);
    if (line.kind !== 'frames') continue;
    for (const t of line.tokens)
      if (t.type === 'frame') items.push({ type: 'frame', frame: t.frame });
      else items.push({ type: 'marker', marker: t.marker });
  }
  return items;
}

/** The interrupted function of an IRQ-entry stack, by the analysis's boundary rules. */
export function interruptedCode(frames: readonly string[], rules: RuleSet): InterruptedCode {
  const c = classifyStack(ftraceStackItems(frames), rules, true);
  const at = c.offenderIndex;
  const rest = at === undefined ? [] : c.frames.slice(at);
  return {
    function: c.offender.function,
    module: c.offender.module,
    cls: c.offender.class,
    frames: rest.map((f) => (f.module ? `${f.function} [${f.module}]` : f.function)),
  };
}
