// Classification of one event's stack (kernel-log-formats §5): find the IRQ boundary,
// read the interrupted context after it, and name the offender, skipping lock / irq-enable
// primitives (kept in the signature) and unreliable `?` frames. Pure: items in, offender out.
import type { Frame, FrameContext } from '../kernel/frame.js';
import type { Marker } from '../kernel/stack-line.js';
import type { RuleSet, RuleListName } from './rules.js';
import type { Offender, OffenderExplanation } from './types.js';

/** One element of a collected stack, in print order. */
export type StackItem =
  | { type: 'frame'; frame: Frame }
  | { type: 'marker'; marker: Marker }
  | { type: 'regs'; mode: 'kernel' | 'user'; frame?: Frame };

/**
 * What the stack shows around the IRQ boundary: an interrupted context after it; a boundary
 * followed only by thread machinery (an IRQ or softirq thread ran the handler); no boundary at
 * all (process context or a thread); or no stack.
 */
export type StackShape = 'interrupted' | 'thread-only' | 'no-boundary' | 'empty';

export interface Classification {
  offender: Offender;
  frames: Frame[];
  offenderIndex?: number;
  shape: StackShape;
}

function role(rules: RuleSet, name: RuleListName, f: Frame): boolean {
  const list = rules[name];
  return list.matchFunction(f.function) || list.matchModule(f.module);
}

/**
 * An IRQ-entry frame that marks the boundary. `?` frames are stale words on the stack, not
 * callers: a `? common_interrupt` left over from an earlier interrupt inside a process-context
 * detection (the player's own write ioctl) must not turn the frames below it into an
 * "interrupted context".
 */
function isBoundaryEntry(rules: RuleSet, f: Frame): boolean {
  return f.reliable && role(rules, 'irq-entry', f);
}

/** Thread machinery of every era: generic kernel-thread start, IRQ threads, softirq threads. */
function isThreadEntry(rules: RuleSet, f: Frame): boolean {
  return (
    role(rules, 'thread-entry', f) ||
    role(rules, 'irq-thread', f) ||
    role(rules, 'softirq-thread', f)
  );
}

function isStrip(rules: RuleSet, f: Frame): boolean {
  return role(rules, 'printer', f) || role(rules, 'probe', f);
}

/** A `?` frame whose offset equals its size points at the start of the NEXT symbol: useless. */
function pointsPastEnd(f: Frame): boolean {
  return f.offset !== undefined && f.size !== undefined && f.offset === f.size;
}

/**
 * A signature names functions only: the same driver is a module in one kernel build and
 * built in on another, and both must group together. The module stays on the offender.
 */
function sigName(f: Frame): string {
  return f.function;
}

// Hard-interrupt entry frames (the outer edge of a hard IRQ on the stack).
const HARDIRQ_ENTRY =
  /^(?:common_interrupt|__common_interrupt|asm_common_interrupt|do_IRQ|__do_IRQ|asm_do_IRQ|handle_IRQ|ret_from_intr|apic_timer_interrupt|smp_apic_timer_interrupt|sysvec_\w+|asm_sysvec_\w+|__sysvec_\w+|gic_handle_irq|el1h_64_irq|el1_irq|el1_interrupt|__irq_svc|handle_riscv_irq|do_irq)$/;
const SOFTIRQ_ENTRY =
  /^(?:__do_softirq|handle_softirqs|do_softirq|do_softirq_own_stack|invoke_softirq|call_softirq|run_ksoftirqd|ksoftirqd|run_timersd|do_current_softirqs|do_single_softirq)$/;

// An explanation lists at most this many skipped frames (a real dump has fewer than 60).
const MAX_EXPLAINED = 64;

/** The role a rule list gives a frame, for explanations. */
function roleName(rules: RuleSet, f: Frame): string {
  if (isStrip(rules, f)) return 'printer';
  if (role(rules, 'alsa-core', f)) return 'detector (ALSA core)';
  if (role(rules, 'audio-driver', f)) return 'reporter (audio driver)';
  if (role(rules, 'softirq-enable', f)) return 'softirq/tasklet re-enable point';
  if (role(rules, 'irq-thread', f)) return "IRQ thread (the detector's own)";
  if (role(rules, 'softirq-thread', f)) return "softirq thread (the detector's own)";
  if (role(rules, 'irq-entry', f)) return 'IRQ entry/exit';
  if (role(rules, 'thread-entry', f)) return 'thread entry';
  if (role(rules, 'syscall-entry', f)) return 'system-call entry';
  if (role(rules, 'idle', f)) return 'idle loop';
  if (role(rules, 'primitives', f)) return 'primitive (irq-enable/unlock/preempt/delay)';
  if (role(rules, 'process-context', f)) return 'process-context detector';
  if (!f.reliable) return 'unreliable (?) frame';
  if (f.inline) return 'inlined into the next frame';
  return 'before the IRQ boundary';
}

function explain(
  rules: RuleSet,
  kept: Frame[],
  offender: Offender,
  boundary: number,
  offenderIndex: number | undefined,
  at: { regsMode: 'kernel' | 'user' | undefined; regsAt: number; markerAt: number },
): OffenderExplanation {
  let where: string;
  if (at.regsMode !== undefined)
    where = `interrupted ${at.regsMode}-mode registers (RIP/EIP/pc line) at frame ${at.regsAt}`;
  else if (boundary > 0 && at.markerAt === boundary)
    where = `the </IRQ>/<EOI> marker at frame ${boundary}`;
  else if (boundary > 0) where = `after the last IRQ-entry frame ${kept[boundary - 1]!.function}`;
  else where = 'no interrupt boundary in the stack';
  const end = offenderIndex ?? kept.length;
  const skipped = kept.slice(0, Math.min(end, MAX_EXPLAINED)).map((f) => ({
    function: f.function,
    role: roleName(rules, f),
  }));
  return {
    rule: offender.reason ?? offender.class,
    boundary: where,
    chosen: offenderIndex !== undefined ? (kept[offenderIndex]?.function ?? null) : null,
    skipped,
  };
}

/** An offender decision as text lines, for `--verbose` reports (the report shell prints them). */
export function renderExplanation(e: OffenderExplanation): string[] {
  const lines = [`rule: ${e.rule}`, `boundary: ${e.boundary}`];
  lines.push(`chosen: ${e.chosen ?? '(none)'}`);
  for (const s of e.skipped) lines.push(`  skipped ${s.function}: ${s.role}`);
  return lines;
}

/** Classifies a collected stack; `ftrace` stacks drop the probe machinery at their top. */
export function classifyStack(items: StackItem[], rules: RuleSet, ftrace = false): Classification {
  // 1. Frames in order with marker contexts; the interrupted-register position.
  const frames: Frame[] = [];
  const marked: (FrameContext | undefined)[] = [];
  let ctx: FrameContext | undefined;
  let regsAt = -1; // index in frames where the interrupted context starts
  let regsMode: 'kernel' | 'user' | undefined;
  let regsFrame: Frame | undefined;
  let markerBoundary = -1; // frames.length at the last </IRQ>/<EOI>
  // Registers count as the interrupted context only after an IRQ boundary: a RIP: 0033 at the
  // bottom of a process-context stack is the syscall's user registers, not an interrupt.
  let seenIrq = false;
  // …and only right at the boundary: the last thing before them is an IRQ-entry frame or an
  // IRQ marker. (A softirq run at local_bh_enable in a syscall has IRQ-entry frames, but its
  // RIP: 0033 at the bottom is still the syscall's, far from them.)
  let atBoundary = false;
  let nestedUser = false;
  for (const it of items) {
    if (it.type === 'marker') {
      if (it.marker === 'irq') {
        ctx = 'irq';
        seenIrq = true;
        atBoundary = false;
      } else if (it.marker === 'nmi') ctx = 'nmi';
      else if (it.marker === 'end-irq' || it.marker === 'end-nmi') {
        ctx = 'task';
        markerBoundary = frames.length;
        seenIrq = true;
        atBoundary = true;
      } else if (it.marker === 'task') ctx = 'task';
      continue;
    }
    if (it.type === 'regs') {
      if (regsMode === undefined && seenIrq && atBoundary) {
        regsMode = it.mode;
        regsAt = frames.length;
        if (it.frame) {
          regsFrame = { ...it.frame };
          frames.push(regsFrame);
          marked.push('task');
        }
        // Later register lines belong to this one (i386 EIP pairs, syzkaller inline chains)
        // unless another interrupt entry comes first.
        atBoundary = false;
      } else if (
        regsMode === 'kernel' &&
        !regsFrame &&
        it.mode === 'kernel' &&
        it.frame &&
        frames.length === regsAt
      ) {
        // i386 `EIP: 0060:[<…>]` then `EIP is at sym+…`: the second line names it.
        regsFrame = { ...it.frame };
        frames.push(regsFrame);
        marked.push('task');
      } else if (regsMode === 'kernel' && it.mode === 'user' && atBoundary) {
        // A nested interrupt whose own registers are user mode: the interrupt it nested in
        // was taken from user code, and the period interrupt hit that one's exit path.
        nestedUser = true;
        atBoundary = false;
      } else if (regsMode === 'kernel' && it.mode === 'kernel' && it.frame && atBoundary) {
        // A nested interrupt: its entry frame is followed by its own registers, the
        // instruction it interrupted (e.g. a reschedule IPI taken in _raw_spin_unlock_irqrestore,
        // whose exit path the period interrupt then hit). That instruction is a frame.
        frames.push({ ...it.frame });
        marked.push('task');
        atBoundary = false;
      } else if (
        regsFrame &&
        it.frame &&
        it.mode === 'kernel' &&
        frames.length === regsAt + 1 &&
        regsFrame.inline
      ) {
        // syzkaller prints several RIP lines (inline chain); the last one is the real function.
        regsFrame = { ...it.frame };
        frames[regsAt] = regsFrame;
      }
      continue;
    }
    if (ftrace && frames.length === 0 && (isStrip(rules, it.frame) || it.frame.unsymbolized))
      continue;
    frames.push({ ...it.frame });
    marked.push(ctx);
    atBoundary = isBoundaryEntry(rules, it.frame);
    if (atBoundary) seenIrq = true;
  }
  // Drop printer frames anywhere (they are only ever at the top).
  const keep = frames.map((f, i) => (i === regsAt && regsFrame === f) || !isStrip(rules, f));
  const kept: Frame[] = [];
  const keptCtx: (FrameContext | undefined)[] = [];
  let newRegsAt = -1;
  let newMarkerBoundary = -1;
  frames.forEach((f, i) => {
    if (i === regsAt) newRegsAt = kept.length;
    if (i === markerBoundary) newMarkerBoundary = kept.length;
    if (keep[i]) {
      kept.push(f);
      keptCtx.push(marked[i]);
    }
  });
  if (regsAt === frames.length) newRegsAt = kept.length;
  if (markerBoundary === frames.length) newMarkerBoundary = kept.length;

  const result = (
    offender: Offender,
    boundary: number,
    offenderIndex?: number,
    shape: StackShape = 'interrupted',
  ): Classification => {
    // Contexts: marked ones stay; unmarked frames before the boundary ran in IRQ context.
    // Softirq: frames printed above the outermost softirq entry, up to a hard-IRQ entry
    // (a hard interrupt nested in softirq processing runs in IRQ context again).
    let lastSoftirq = -1;
    for (let i = 0; i < boundary; i++) if (SOFTIRQ_ENTRY.test(kept[i]!.function)) lastSoftirq = i;
    let softirqFrom = lastSoftirq;
    for (let i = lastSoftirq - 1; i >= 0; i--) {
      const f = kept[i]!;
      if (!SOFTIRQ_ENTRY.test(f.function) && HARDIRQ_ENTRY.test(f.function)) break;
      softirqFrom = i;
    }
    kept.forEach((f, i) => {
      const m = keptCtx[i];
      if (m === 'nmi') f.context = 'nmi';
      else if (i < boundary) f.context = i >= softirqFrom && i < lastSoftirq ? 'softirq' : 'irq';
      else f.context = 'task';
    });
    offender.explanation = explain(rules, kept, offender, boundary, offenderIndex, {
      regsMode,
      regsAt: newRegsAt,
      markerAt: newMarkerBoundary,
    });
    const out: Classification = { offender, frames: kept, shape };
    if (offenderIndex !== undefined) out.offenderIndex = offenderIndex;
    return out;
  };

  if (kept.length === 0 && regsMode === undefined) {
    return result(
      {
        class: 'none',
        function: null,
        module: null,
        signature: 'none',
        reason: 'no stack printed',
      },
      0,
      undefined,
      'empty',
    );
  }

  // 2. The boundary: interrupted registers first, else the last IRQ-entry frame / </IRQ> marker.
  let boundary = -1;
  let start = -1;
  if (regsMode === 'user') {
    return result(
      {
        class: 'user',
        function: null,
        module: null,
        signature: 'user',
        reason: 'interrupted registers are user mode',
      },
      newRegsAt,
    );
  }
  if (regsMode === 'kernel') {
    boundary = newRegsAt;
    start = newRegsAt;
  } else {
    let lastEntry = -1;
    kept.forEach((f, i) => {
      if (isBoundaryEntry(rules, f)) lastEntry = i;
    });
    const b = Math.max(lastEntry + 1, newMarkerBoundary);
    if (lastEntry >= 0 || newMarkerBoundary >= 0) {
      boundary = b;
      start = b;
      if (start >= kept.length) {
        const entry = lastEntry >= 0 ? kept[lastEntry] : undefined;
        if (entry && role(rules, 'user-entry', entry)) {
          return result(
            {
              class: 'user',
              function: null,
              module: null,
              signature: 'user',
              reason: `stack ends at the interrupt entry ${entry.function}: user mode was interrupted`,
            },
            boundary,
          );
        }
        return result(
          {
            class: 'none',
            function: null,
            module: null,
            signature: 'none',
            reason: 'nothing printed after the IRQ boundary',
          },
          boundary,
        );
      }
    }
  }

  if (start < 0) {
    // No IRQ boundary at all: detected in process context (write/ioctl/injection, workqueue).
    const pc = kept.find((f) => role(rules, 'process-context', f));
    const th = kept.find((f) => isThreadEntry(rules, f));
    const fn = pc ?? th;
    return result(
      {
        class: 'none',
        function: fn ? fn.function : null,
        module: fn?.module ?? null,
        signature: 'none',
        reason: pc
          ? `detected in process context (${pc.function})`
          : th
            ? `detected in a kernel thread (${th.function})`
            : 'no interrupt boundary in the stack',
      },
      0,
      undefined,
      'no-boundary',
    );
  }

  // 3. The interrupted context: skip primitives (kept for the signature) and `?` frames.
  const prims: string[] = [];
  let fallback = -1;
  let chosen = -1;
  let lastPrim = -1;
  let threadAt = -1;
  for (let i = start; i < kept.length; i++) {
    const f = kept[i]!;
    if (f.inline && i + 1 < kept.length) continue;
    if (f.reliable && role(rules, 'softirq-enable', f)) {
      // Interrupts came back on where softirq/tasklet processing re-enabled them: a primitive.
      const n = sigName(f);
      if (prims[prims.length - 1] !== n) prims.push(n);
      lastPrim = i;
      continue;
    }
    if (role(rules, 'irq-entry', f) || isThreadEntry(rules, f)) {
      if (isThreadEntry(rules, f)) {
        threadAt = i;
        break;
      }
      continue;
    }
    if (role(rules, 'primitives', f)) {
      if (f.reliable) {
        const n = sigName(f);
        if (prims[prims.length - 1] !== n) prims.push(n);
        lastPrim = i;
      }
      continue;
    }
    if (!f.reliable) {
      if (fallback < 0 && !pointsPastEnd(f) && !f.unsymbolized) fallback = i;
      continue;
    }
    chosen = i;
    break;
  }
  if (chosen < 0 && fallback < 0 && nestedUser) {
    return result(
      {
        class: 'user',
        function: null,
        module: null,
        signature: 'user',
        reason:
          'nested interrupt: the period interrupt hit the exit path of an interrupt taken from user mode',
      },
      boundary,
    );
  }
  // A thread ran the handler itself (ksoftirqd's handle_softirqs, the -rt handle_IRQ_event under
  // thread_edge_irq) only when no hard interrupt is in the stack: no interrupted registers and
  // no hard-IRQ entry frame. Otherwise a hard interrupt came while a thread sat in its own
  // loop, and that is not the thread's detection. (A `? asm_sysvec_…` word is stale stack
  // content, seen in ksoftirqd dumps of the lab; a </SOFTIRQ> marker is no hard interrupt
  // either: x86 prints it for softirqs run on their own stack from local_bh_enable too.)
  const ranInThread =
    regsMode === undefined && !kept.some((f) => f.reliable && HARDIRQ_ENTRY.test(f.function));
  if (chosen < 0 && ranInThread && threadAt >= 0) {
    // The thread's own machinery up to its loop, nothing interrupted: `?` words on the way are
    // stale stack contents and a primitive there is no point where interrupts came back on
    // (softirqs run where an IRQ or softirq thread re-enabled bottom halves, as in
    // irq_forced_thread_fn's local_bh_enable). No offender.
    const prim = lastPrim >= 0 ? kept[lastPrim]! : undefined;
    return result(
      {
        class: 'none',
        function: null,
        module: null,
        signature: 'none',
        reason:
          prim && role(rules, 'softirq-enable', prim)
            ? `softirqs ran at ${prim.function} of a kernel thread, nothing interrupted`
            : 'period handled in a kernel thread, nothing interrupted',
      },
      boundary,
      undefined,
      'thread-only',
    );
  }
  if (chosen < 0) chosen = fallback >= 0 ? fallback : lastPrim;
  if (chosen < 0) {
    // Only unsymbolized addresses (no kallsyms): rank by the first address.
    const firstAddr = kept.slice(start).findIndex((f) => f.unsymbolized);
    if (firstAddr >= 0) chosen = start + firstAddr;
  }
  if (chosen < 0) {
    return result(
      {
        class: 'none',
        function: null,
        module: null,
        signature: 'none',
        reason: 'no usable frame after the IRQ boundary',
      },
      boundary,
    );
  }
  const off = kept[chosen]!;
  const idle = (f: Frame | undefined): boolean => f !== undefined && role(rules, 'idle', f);
  if (idle(off) || idle(kept[start])) {
    const fn = idle(kept[start]) ? kept[start]! : off;
    return result(
      {
        class: 'idle',
        function: fn.function,
        module: fn.module ?? null,
        signature: 'idle',
        reason: `the CPU was idle (${fn.function})`,
      },
      boundary,
      chosen,
    );
  }
  if (prims[prims.length - 1] === sigName(off)) prims.pop();
  const signature = [...prims, sigName(off)].join(' | ');
  return result(
    {
      class: 'kernel',
      function: off.function,
      module: off.module ?? null,
      signature,
      reason:
        regsMode === 'kernel'
          ? 'interrupted kernel registers (RIP/EIP/pc)'
          : 'first frame after the IRQ boundary',
    },
    boundary,
    chosen,
  );
}
