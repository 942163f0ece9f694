// Which context noticed an XRUN (issue 17): the period interrupt itself (hard IRQ, or a softirq
// on interrupt exit), an IRQ thread (`threadirqs`, PREEMPT_RT, the old -rt series' do_irqd), a
// softirq thread (ksoftirqd, PREEMPT_RT's ktimers) or a task's own system call (timer-scheduled
// playback: the audio server's HWSYNC/DELAY/STATUS ioctl or write). In the last three the stack
// is the detector's own: nothing was interrupted, so the stack-only path must not name its
// frames as the offender. Pure: a classified stack and the log's task evidence in, a
// detection (and, for detector-only stacks, the replacement offender) out.
import type { Classification } from './classify.js';
import type { RuleListName, RuleSet } from './rules.js';
import type { DetectingTask, Detection, DetectionContext, Frame, Offender } from './types.js';

/** What the log says about the event besides its stack. */
export interface DetectionEvidence {
  task?: DetectingTask;
  /** The ftrace flags column's context: `h`/`H` hard IRQ, `s` softirq, `z`/`Z` NMI, else task. */
  flagsContext?: 'hardirq' | 'softirq' | 'nmi' | 'task';
}

/** A detection and, when the stack is the detector's own, the offender that says so. */
export interface DetectionResult {
  detection: Detection;
  /** Replaces the stack classification's offender (class `detector-only`), or undefined. */
  offender?: Offender;
}

// ftrace/trace_pipe: `  irq/33-snd_hda_-159  [000] D..1.  8.572607: xrun: …` (comm up to 16
// characters, may hold `-` and spaces; an optional `(  tgid)` column; the flags column).
const FTRACE_TASK_RE =
  /^\s*(\S.{0,40}?)-(\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[\d{3,}\](?:\s+([\w.]{3,8}))?\s/;
// lib/dump_stack.c 3.x+: `CPU: 0 PID: 159 Comm: irq/33-snd_hda_ Not tainted …` (6.11+ adds
// `UID: 0`); 2.6.x x86 `Pid: 1234, comm: aplay Not tainted …`. A comm may hold spaces (the old
// -rt IRQ threads were `IRQ 16`): it ends at the taint word, or at the first space without one.
const DUMP_TASK_RE =
  /\b(?:CPU: ?\d+ (?:UID: \d+ )?PID: ?(\d+) Comm|Pid: (\d+), comm): (?:(.{1,20}?) +(?:Not tainted|Tainted:)|(\S+))/;

/** The task (and ftrace flags context) an event's header or dump task line names. */
export function parseDetectionEvidence(header: string, taskLine?: string): DetectionEvidence {
  const out: DetectionEvidence = {};
  const ft = FTRACE_TASK_RE.exec(header);
  if (ft) {
    out.task = { comm: ft[1]!.trim(), pid: Number(ft[2]) };
    const flags = ft[3];
    if (flags !== undefined && /^[.\w]+$/.test(flags) && !/^\d+$/.test(flags)) {
      out.flagsContext = /[hH]/.test(flags)
        ? 'hardirq'
        : /[zZ]/.test(flags)
          ? 'nmi'
          : /s/.test(flags)
            ? 'softirq'
            : 'task';
    }
  }
  if (taskLine !== undefined) {
    const m = DUMP_TASK_RE.exec(taskLine);
    if (m) {
      const pid = m[1] ?? m[2];
      const comm = m[3] ?? m[4];
      if (pid !== undefined && comm !== undefined) out.task = { comm, pid: Number(pid) };
    }
  }
  return out;
}

function has(rules: RuleSet, name: RuleListName, f: Frame): boolean {
  return rules[name].matchFunction(f.function) || rules[name].matchModule(f.module);
}

/** The first (innermost) reliable frame with a role, so the nearest one to the detector. */
function firstWith(rules: RuleSet, frames: readonly Frame[], ...names: RuleListName[]) {
  return frames.find((f) => f.reliable && names.some((n) => has(rules, n, f)));
}

/** The context a stack shows when nothing was interrupted (thread-only or no boundary). */
function ownStackContext(
  rules: RuleSet,
  frames: readonly Frame[],
): { context: DetectionContext; via: string } | null {
  // The innermost thread machinery decides: softirqs run by an IRQ thread at its
  // local_bh_enable (3.x-rt do_current_softirqs) are softirq processing inside that thread.
  const idx = (f: Frame | undefined): number => (f ? frames.indexOf(f) : Infinity);
  const irqThread = firstWith(rules, frames, 'irq-thread');
  const softThread = firstWith(rules, frames, 'softirq-thread');
  if (irqThread || softThread) {
    // A softirq run on the way (handle_softirqs/__do_softirq above an IRQ thread's
    // __local_bh_enable_ip) makes it softirq processing in that thread.
    const softRun = frames.findIndex(
      (f, i) => i < idx(irqThread) && f.context === 'softirq' && f.reliable,
    );
    if (softThread && idx(softThread) < idx(irqThread))
      return { context: 'softirq', via: softThread.function };
    if (irqThread && softRun >= 0) return { context: 'softirq', via: irqThread.function };
    if (irqThread) return { context: 'irq-thread', via: irqThread.function };
  }
  const alsa = firstWith(rules, frames, 'process-context');
  if (alsa) return { context: 'process', via: alsa.function };
  const sys = firstWith(rules, frames, 'syscall-entry');
  if (sys) return { context: 'process', via: sys.function };
  const kthread = firstWith(rules, frames, 'thread-entry');
  if (kthread) return { context: 'process', via: kthread.function };
  return null;
}

/**
 * For a stack with an interrupted context: where the detector's own frame ran — a softirq run
 * on interrupt exit, else the hard interrupt (also one nested in softirq processing).
 */
function interruptContext(frames: readonly Frame[]): { context: DetectionContext; via?: string } {
  const above = frames.filter((f) => f.context === 'irq' || f.context === 'softirq');
  const entry = above[above.length - 1];
  const context = frames[0]?.context === 'softirq' ? 'softirq' : 'hardirq';
  return entry ? { context, via: entry.function } : { context };
}

function fromFlags(e: DetectionEvidence): DetectionContext {
  switch (e.flagsContext) {
    case 'hardirq':
    case 'nmi':
      return 'hardirq';
    case 'softirq':
      return 'softirq';
    case 'task': {
      const comm = e.task?.comm ?? '';
      if (/^irq\/\d+-/.test(comm)) return 'irq-thread';
      if (/^(?:ksoftirqd|ktimers)\/\d+$/.test(comm)) return 'softirq';
      return 'process';
    }
    case undefined:
      return 'unknown';
  }
}

function taskText(t: DetectingTask | undefined): string {
  return t ? ` ${t.comm} (pid ${t.pid})` : '';
}

/** The `why:` text of a detector-only event: who noticed it, and that the stack is its own. */
function detectorOnlyReason(d: Detection): string {
  const where = d.via ? `, in ${d.via}` : '';
  const who =
    d.context === 'irq-thread'
      ? `detected in the IRQ thread${taskText(d.task)}${where}`
      : d.context === 'softirq'
        ? `detected in softirq processing in${d.task ? taskText(d.task) : ' a kernel thread'}${where}`
        : `detected in process context by${d.task ? taskText(d.task) : ' a task'}${where}`;
  if (d.context === 'process')
    return `${who}: the stack is the task's own call, nothing was interrupted; what delayed the task is not in it: run with --recorder on (docs/recorder.md)`;
  return `${who}: the stack is the thread's own, nothing was interrupted; what kept the thread from running is not in it: run with --recorder on (docs/recorder.md), or boot without threadirqs (not on PREEMPT_RT) to see the interrupted code`;
}

/**
 * Decides the detection of one classified stack; for IRQ-thread, softirq-thread and
 * process-context stacks (nothing interrupted) also the `detector-only` offender that replaces
 * the classification's, so the detector's frames are never ranked.
 */
export function recogniseDetection(
  c: Classification,
  rules: RuleSet,
  evidence: DetectionEvidence = {},
): DetectionResult {
  const withTask = (d: Omit<Detection, 'task'>): Detection =>
    evidence.task ? { ...d, task: evidence.task } : d;
  if (c.shape === 'interrupted') {
    const ic = interruptContext(c.frames);
    return { detection: withTask({ ...ic, evidence: 'stack' }) };
  }
  if (c.shape === 'empty') {
    const context = fromFlags(evidence);
    return {
      detection: withTask({ context, evidence: context === 'unknown' ? 'none' : 'flags' }),
    };
  }
  const own = ownStackContext(rules, c.frames);
  if (!own) {
    const context = fromFlags(evidence);
    return {
      detection: withTask({ context, evidence: context === 'unknown' ? 'none' : 'flags' }),
    };
  }
  const detection = withTask({ context: own.context, via: own.via, evidence: 'stack' });
  const reason = detectorOnlyReason(detection);
  const offender: Offender = {
    class: 'detector-only',
    function: null,
    module: null,
    signature: 'detector-only',
    reason,
  };
  if (c.offender.explanation)
    offender.explanation = { ...c.offender.explanation, rule: reason, chosen: null };
  return { detection, offender };
}

/**
 * The frame contexts of a detector's own stack: what ran above an IRQ-entry frame there ran in
 * the thread (softirq processing for a softirq context), not in a hard interrupt.
 */
export function ownStackFrames(frames: readonly Frame[], context: DetectionContext): Frame[] {
  const to = context === 'softirq' ? 'softirq' : 'task';
  return frames.map((f) => (f.context === 'irq' ? { ...f, context: to } : f));
}
