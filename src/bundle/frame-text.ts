// The text form of stack frames inside a bundle (events[].frames), and its way back into a
// kernel-log shape the analyzer can re-read when signature rules change (--resign).
// One string per item, innermost first:
//   "func" | "func [module]"            a frame (offsets stripped: they differ per build)
//   "? func [module]"                    an unreliable frame (printed with "?" by the kernel)
//   "<IRQ>" "</IRQ>" "<NMI>" "</NMI>" "<TASK>" "</TASK>" "<SOFTIRQ>" "</SOFTIRQ>"
//                                        context markers, where the kernel printed them or
//                                        where the frame context changes
//   "RIP: func [module]" | "RIP: 0033:0x7f…"   the interrupted registers (kernel / user)
// Pure; the frame shape is structural so the bundle does not depend on analysis/ types.

/** The fields of an analyzer frame this needs (src/kernel/frame.ts Frame fits). */
export interface FrameLike {
  function: string;
  module?: string | undefined;
  reliable?: boolean;
  context?: 'irq' | 'softirq' | 'nmi' | 'task';
}

const OPEN: Record<string, string> = {
  irq: '<IRQ>',
  softirq: '<SOFTIRQ>',
  nmi: '<NMI>',
  task: '<TASK>',
};
const CLOSE: Record<string, string> = {
  irq: '</IRQ>',
  softirq: '</SOFTIRQ>',
  nmi: '</NMI>',
  task: '</TASK>',
};

/** One frame as bundle text. */
export function frameText(f: FrameLike): string {
  return `${f.reliable === false ? '? ' : ''}${f.function}${f.module ? ` [${f.module}]` : ''}`;
}

/**
 * Analyzer frames → bundle frame strings, with context markers where the frame context
 * changes (no registers are invented: the analyzer's frames do not say which one was the
 * RIP line). Exists so the session writes frames that `aggregate --resign` classifies again
 * exactly as `analyze` did (tested over every real log in the project).
 */
export function framesToBundleText(frames: FrameLike[]): string[] {
  const out: string[] = [];
  let ctx: string | undefined;
  for (const f of frames) {
    const c = f.context ?? 'task';
    if (c !== ctx) {
      if (ctx !== undefined && ctx !== 'task') out.push(CLOSE[ctx]!);
      if (c !== 'task' || ctx !== undefined) out.push(OPEN[c]!);
      ctx = c;
    }
    out.push(frameText(f));
  }
  if (ctx !== undefined && ctx !== 'task') out.push(CLOSE[ctx]!);
  return out;
}

const MARKER_RE = /^<\/?(?:IRQ|EOI|NMI|EON|TASK|SOFTIRQ)>$/;

/** One bundle frame string as a kernel log stack line (offsets made up, never 0/0). */
function logLine(s: string): string {
  const t = s.trim();
  if (MARKER_RE.test(t)) return ` ${t}`;
  const rip = /^RIP:\s*(.*)$/.exec(t);
  if (rip) {
    const body = rip[1]!;
    if (/^0033:/.test(body)) return `RIP: ${body}`;
    const m = /^(\S+)(?:\s+\[([^\]]+)\])?$/.exec(body);
    return m ? `RIP: 0010:${m[1]}+0x1/0x2${m[2] ? ` [${m[2]}]` : ''}` : `RIP: ${body}`;
  }
  const m = /^(\?\s+)?(\S+)(?:\s+\[([^\]]+)\])?$/.exec(t);
  if (!m) return ` ${t}`;
  return ` ${m[1] ? '? ' : ''}${m[2]}+0x1/0x2${m[3] ? ` [${m[3]}]` : ''}`;
}

/**
 * Bundle frames → a kernel log excerpt (XRUN header + call trace) that the analyzer parses
 * exactly like a real dump. Exists so re-signing uses the analyzer's own rules unchanged.
 */
export function bundleFramesToLog(frames: string[], pcm = 'pcmC0D0p'): string[] {
  return [`snd_pcm: XRUN: ${pcm}`, 'Call Trace:', ...frames.map(logLine)];
}
