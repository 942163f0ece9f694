// Pure: the per-class fleet ranking (`aggregate --by class`, `--class C`) as text for a
// terminal or Markdown. Culprit names come from the machines (task comms, handler names):
// the command prints the text through terminalSafe; Markdown cells escape "|".
import type { ClassRank, ClassRanking } from '../store/class-ranking-build.js';
import { playback } from './ranking-render.js';

const pct = (x: number): string => `${(x * 100).toFixed(x >= 0.1 ? 0 : 1)}%`;
const rate = (x: number): string => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2));
const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;

/** What each class means, in a few words (the same words as docs/aggregate.md). */
const CLASS_MEANING: Record<string, string> = {
  kernel: 'kernel code with interrupts off (from the stack)',
  idle: 'the CPU was idle (from the stack)',
  user: 'user space was interrupted (from the stack)',
  none: 'no usable stack',
  'detector-only': "the stack is the detecting task's own (no culprit; use --recorder)",
  'irq-latency': 'the period interrupt came late (interrupts off)',
  'blocked-by-task': 'another task kept the audio thread off the CPU',
  interference: 'interrupt and softirq handlers took the time',
  'woken-late': 'runnable, but the CPU stayed idle or nothing explains it',
  'application-late': 'the application slept or ran too long: no kernel code to blame',
};

const culpritText = (c: string): string => (c === '' ? '(none)' : c);

function header(r: ClassRanking): string {
  return `${r.only === null ? 'Fleet by class' : `Class ${r.only}`}: ${plural(r.events, 'kernel event')} in ${plural(r.bundles, 'bundle')} from ${plural(r.machines, 'machine')}, ${playback(r.playbackHours)} of playback`;
}

function classHead(c: ClassRank): string {
  return `${c.class} — ${plural(c.incidents, 'incident')} (${pct(c.share)}) on ${plural(c.machines, 'machine')}, ${rate(c.perMachineHour)}/machine-hour; ${CLASS_MEANING[c.class] ?? c.source}`;
}

/** Renders the per-class ranking for a terminal. */
export function renderClassRankingText(r: ClassRanking): string {
  if (r.classes.length === 0) {
    return r.only === null
      ? 'No kernel events in the store yet (or none since the --since date).\n'
      : `No events of class ${r.only} in the store (or none since the --since date).\n`;
  }
  const lines = [header(r), ''];
  for (const c of r.classes) {
    lines.push(classHead(c));
    for (const [i, k] of c.culprits.entries()) {
      lines.push(
        `  ${String(i + 1).padStart(3)}. ${culpritText(k.culprit)} — ${k.incidents} (${pct(k.share)}) on ${plural(k.machines, 'machine')}, ${k.firstSeen.slice(0, 10)} … ${k.lastSeen.slice(0, 10)}`,
      );
    }
    if (c.more > 0) lines.push(`       … ${c.more} more (--top)`);
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Renders the per-class ranking as Markdown (one table per class). */
export function renderClassRankingMarkdown(r: ClassRanking): string {
  if (r.classes.length === 0) return `${renderClassRankingText(r)}`;
  const lines = [`## ${cell(header(r))}`, ''];
  for (const c of r.classes) {
    lines.push(
      `### ${cell(classHead(c))}`,
      '',
      '| # | culprit | incidents | share | machines |',
      '|---|---|---|---|---|',
    );
    for (const [i, k] of c.culprits.entries()) {
      lines.push(
        `| ${i + 1} | ${cell(culpritText(k.culprit))} | ${k.incidents} | ${pct(k.share)} | ${k.machines} |`,
      );
    }
    if (c.more > 0) lines.push('', `${c.more} more (--top).`);
    lines.push('');
  }
  return lines.join('\n');
}
