// The report sentences for detector-only XRUNs (issue 17): how many were detected in an IRQ
// thread, a softirq thread or process context, by which tasks, that their stacks name the
// detector and not the culprit, and how to get the real answer. Shared by the text/markdown
// report and the HTML report, so both say the same. Pure.
import type { AnalysisSummary, DetectionContext, DetectorOnlyCount } from './types.js';

const CONTEXT: Record<DetectionContext, string> = {
  'irq-thread': 'IRQ-thread context',
  softirq: 'softirq-thread context',
  process: 'process context',
  hardirq: 'hard-IRQ context',
  unknown: 'an unknown context',
};

function one(g: DetectorOnlyCount): string {
  const n = g.count === 1 ? '1 XRUN was' : `${g.count} XRUNs were`;
  const tasks = g.tasks.length > 0 ? ` (${g.tasks.join(', ')})` : '';
  const their = g.count === 1 ? 'its stack names' : 'their stacks name';
  return `${n} detected in ${CONTEXT[g.context]}${tasks}: ${their} the detector, not the culprit.`;
}

/**
 * "N XRUNs were detected in IRQ-thread context (irq/33-snd_hda_): their stacks name the
 * detector, not the culprit." per context, then one sentence on how to see the culprit.
 */
export function detectorOnlySentences(s: AnalysisSummary): string[] {
  const groups = s.detectorOnly ?? [];
  if (groups.length === 0) return [];
  const out = groups.map(one);
  const how = [
    'To see what delayed them, run again with `--recorder on` (the flight recorder, docs/recorder.md)',
  ];
  if (groups.some((g) => g.context === 'irq-thread' || g.context === 'softirq'))
    how.push(
      'or boot without `threadirqs` (not possible on PREEMPT_RT) so the period interrupt itself shows the interrupted code',
    );
  if (groups.some((g) => g.context === 'process'))
    how.push(
      "or play with period interrupts (a sound server's timer-based scheduling off) so the XRUN is detected in the interrupt",
    );
  out.push(`${how.join(', ')}.`);
  return out;
}
