// What one body line means inside a stack dump: frames (all grammars F1–F12, ftrace
// ` => `), context markers, interrupted-register lines (`RIP:`/`EIP:`/`pc :`/`PC is at`),
// lines to skip (registers, Code:, raw stack words, disassembly) and context lines
// (`CPU: … PID:`, `Hardware name:`, `Call Trace:`). Anything else ends a stack.
import { makeFrame, type Frame } from './frame.js';

export type Marker = 'irq' | 'end-irq' | 'nmi' | 'end-nmi' | 'task' | 'end-task' | 'stack-switch';

export type StackToken =
  | { type: 'frame'; frame: Frame; armCaller?: boolean; armCallee?: boolean }
  | { type: 'marker'; marker: Marker };

export type StackLine =
  | { kind: 'frames'; tokens: StackToken[] }
  /** Interrupted registers: `mode` kernel (RIP: 0010, EIP, pc, PC is at) or user (RIP: 0033, user pc). */
  | { kind: 'regs'; mode: 'kernel' | 'user'; frame?: Frame }
  /** An address printed alone (mail-wrapped frame, F12): the symbol follows on the next line. */
  | { kind: 'partial' }
  /** The wrapped tail of a frame: ` [snd_pcm] (8)` — the module of the previous frame. */
  | { kind: 'module-tail'; module: string }
  | { kind: 'skip' }
  /** `CPU: … PID: …` / `Pid: …, comm:` — the first line of every dump_stack(). */
  | { kind: 'context'; cpuLine: boolean }
  | { kind: 'empty' }
  | { kind: 'other' };

const SYM = String.raw`[A-Za-z_$.][\w.$]*`;
const OFFSZ = String.raw`\+0x([0-9a-fA-F]+)\/0x([0-9a-fA-F]+)`;
const MOD = String.raw`(?:\s+\[([^\]\s]+)\])?`;

const MARKERS: Record<string, Marker> = {
  '<IRQ>': 'irq',
  '<EOI>': 'end-irq',
  '</IRQ>': 'end-irq',
  '<NMI>': 'nmi',
  '<EON>': 'end-nmi',
  '</NMI>': 'end-nmi',
  '<TASK>': 'task',
  '</TASK>': 'end-task',
  '<SOFTIRQ>': 'irq',
  '</SOFTIRQ>': 'end-irq',
};
const MARKER_PREFIX_RE = /^(<\/?(?:IRQ|EOI|NMI|EON|TASK|SOFTIRQ)>)\s*/;

// F1/F4/F6/F8: `[<c0105f3e>] ? dump_stack+0x1e/0x30 [mod] (44)`; bare `[<c010019f>] 0xc010019f`.
const ADDR_FRAME_RE = new RegExp(
  String.raw`^\[<([0-9a-fA-F]+)>\]\s*(\?\s*)?(?:(${SYM})(?:${OFFSZ})?${MOD}(?:\s+\(\d+\))?|(0x[0-9a-fA-F]+))?\s*$`,
);
// F7 ARM: `[<b0850b58>] (dump_stack) from [<b06a39c4>] (__snd_pcm_xrun+0xa0/0x114 [mod])`.
const ARM_FRAME_RE = new RegExp(
  String.raw`^\[<[0-9a-fA-F]+>\]\s*\((${SYM})(?:${OFFSZ})?${MOD}\)\s+from\s+\[<([0-9a-fA-F]+)>\]\s*\((?:(${SYM})(?:${OFFSZ})?${MOD}|(0x[0-9a-fA-F]+))\)\s*$`,
);
// F2: `[__crc_totalram_pages+1279533/3558647] snd_pcm_period_elapsed+0x2c7/0x400 [snd_pcm]`.
const PRINT_SYMBOL_RE = new RegExp(
  String.raw`^\[${SYM}\+\d+\/\d+\]\s+(${SYM})(?:${OFFSZ})?${MOD}\s*$`,
);
// F3 old x86_64: `<ffffffff880f6984>{:ipath_core:ipath_verbs_send+362}` (1–2 per line, markers inline).
const F3_TOKEN_RE =
  /<([0-9a-fA-F]{8,16})>\{(?::([^:}]+):)?([^+}\s]+)(?:\+(\d+))?\}|<(\/?(?:IRQ|EOI|NMI|EON|TASK))>/g;
// F5/F9/F10: symbol first: `? sym+0x1/0x2 [mod] (C)`, `sym+0x1/0x2 lib/x.c:12`, `spin_lock include/x.h:354 [inline]`,
// `? __warn (kernel/panic.c:673) `.
const SYMBOL_FRAME_RE = new RegExp(
  String.raw`^(\?\s+)?(${SYM})(?:${OFFSZ})?${MOD}(?:\s+\([A-Z?]\))?((?:\s+\((?:[^()]|\([^()]*\))*:\d+[^()]*(?:\([^()]*\)[^()]*)*\))|(?:\s+[\w./+\-]+:\d+(?:\s+\[inline\])?))?\s*$`,
);
// ftrace stack: ` => sym+0x5/0x10 [mod]`, ` => 0xffffffffc0a1b2c3`.
const FTRACE_FRAME_RE = new RegExp(
  String.raw`^=>\s+(?:(${SYM})(?:${OFFSZ})?${MOD}|(0x[0-9a-fA-F]+|[0-9a-fA-F]{8,16}))\s*$`,
);

// Interrupted registers.
const RIP_RE = new RegExp(
  String.raw`^(?:RIP|EIP|IP):\s*(?:([0-9a-fA-F]{4}):)?\s*(?:\[<[0-9a-fA-F]+>\]\s*)*(?:(${SYM})(?=[+\s]|$)(?!\s*:)(?:${OFFSZ})?${MOD}|(0x[0-9a-fA-F]+|[0-9a-fA-F]{8,16})(?![\w:]))?`,
);
const PC_RE = new RegExp(
  String.raw`^(?:pc|PC is at|EIP is at|epc|IP is at|NIP|nip|PC)\s*:?\s+(?:(${SYM})(?=[+\s]|$)(?!\s*:)(?:${OFFSZ})?${MOD}|(0x[0-9a-fA-F]+|[0-9a-fA-F]{8,16})(?![\w:]))`,
);

const SKIP_RES: RegExp[] = [
  // x86 registers / segment lines / flags
  /^(?:RSP|RAX|RBX|RCX|RDX|RSI|RDI|RBP|R\d{1,2}|FS|GS|CS|DS|ES|SS|CR\d|DR\d|EAX|EBX|ECX|EDX|ESI|EDI|EBP|ESP|EFLAGS|ORIG_RAX|PKRU|eax|ebx|ecx|edx|esi|edi|ebp|esp|ds|es|fs|gs|ss)\s*:/,
  // arm64 / arm32 / riscv / ppc registers; `lr :` is the caller, not the interrupted context
  /^(?:x\d{1,2}|sp|pstate|lr|LR is at|ip|fp|r\d{1,2}|psr|ra|gp|tp|t\d|s\d{1,2}|a\d|status|badaddr|cause|orig_a0|MSR|CTR|XER|CCR|GPR\d+|LR|lr)\s*:?\s*(?:\[<|[0-9a-fA-F]{4,}|\S+\+0x)/,
  /^(?:Code|Stack|Flags|Control|Table|DAC|Mem abort info|Data abort info|ESR|EC|IL|SET|FAR|EA|S1PTW|FnV|ISV|ISS|CM|WnR|user pgtable|Process|task|Exception stack|Backtrace|Function entered at|irq event stamp|hardirqs last|softirqs last|All code|Code starting with|PGD|P4D|PUD|PMD|PTE|#PF|Oops#?|Preemption disabled at|Instruction dump|stack|Memory state around|Register \w+ information|Kernel panic|CPU features|---- |vmalloc|page dumped)\b[^\n]*$/,
  // raw stack words (x86 ` ffffffff81a65aeb ffff880206c03bd8 …`, ARM `df40: d0b3df7c …`, i386 `Stack: …`)
  // (separators are mandatory: optional ones made this regex exponential on long hex runs)
  /^(?:[0-9a-fA-F]{4,16}:\s+)?(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{16}|\(null\)|<[0-9a-fA-F]{8,16}>)(?:\s+(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{16}|\(null\)|<[0-9a-fA-F]{8,16}>))+\s*$/,
  // disassembly listing `   0:	48 89 e5             	mov    %rsp,%rbp`, `*  2a:	...`
  /^\*?\s*[0-9a-f]+:\s+(?:[0-9a-f]{2}\s)+/,
  /^={5,}\s*$/,
  /^-{4,}\s*$/,
  /^<stack trace>\s*$/,
];

const CPU_LINE_RE =
  /^(?:CPU: ?\d+ (?:UID: \d+ )?PID: ?\d+|Pid: \d+, comm:|CPU \d+\s*$|CPU: \d+ UID)/;
// The lines lib/dump_stack.c's dump_stack_print_info() prints after the CPU line: the machine,
// then print_worker_info() (Workqueue:), print_stop_info() (Stopper: over migration/N, since
// 5.8) and print_scx_info() (Sched_ext:).
const CONTEXT_RE =
  /^(?:Hardware name:|Workqueue:|Stopper:|Call Trace:?\s*$|Call trace:\s*$|Call Trace:|Tainted:|Modules linked in:|Stack trace:|Backtrace:|Sched_ext:|Comm:)/;

function frameFromParts(
  sym: string | undefined,
  off: string | undefined,
  size: string | undefined,
  mod: string | undefined,
  addr: string | undefined,
  reliable: boolean,
): Frame | undefined {
  if (sym !== undefined) return makeFrame(sym, { offset: off, size, module: mod, reliable });
  if (addr !== undefined) {
    const a = addr.startsWith('0x') ? addr : `0x${addr}`;
    return makeFrame(a.toLowerCase(), { reliable });
  }
  return undefined;
}

/** Recognises a frame-only body (no markers); null when the text is not a frame. */
function parseFrameText(t: string): StackToken[] | null {
  const c = t.charCodeAt(0);
  if (c === 91 /* [ */) {
    if (t.charCodeAt(1) === 60 /* < */) {
      let m = ADDR_FRAME_RE.exec(t);
      if (m) {
        const f = frameFromParts(m[3], m[4], m[5], m[6], m[7], m[2] === undefined);
        return f ? [{ type: 'frame', frame: f }] : [];
      }
      m = ARM_FRAME_RE.exec(t);
      if (m) {
        const callee = makeFrame(m[1]!, { offset: m[2], size: m[3], module: m[4] });
        const caller = frameFromParts(m[6], m[7], m[8], m[9], m[10], true);
        const out: StackToken[] = [{ type: 'frame', frame: callee, armCallee: true }];
        if (caller) out.push({ type: 'frame', frame: caller, armCaller: true });
        return out;
      }
      return null;
    }
    const m = PRINT_SYMBOL_RE.exec(t);
    if (m)
      return [
        { type: 'frame', frame: makeFrame(m[1]!, { offset: m[2], size: m[3], module: m[4] }) },
      ];
    return null;
  }
  if (c === 60 /* < */ && t.includes('>{')) {
    const out: StackToken[] = [];
    F3_TOKEN_RE.lastIndex = 0;
    let rest = t;
    for (let m = F3_TOKEN_RE.exec(t); m; m = F3_TOKEN_RE.exec(t)) {
      rest = rest.replace(m[0], '');
      if (m[5] !== undefined) {
        const mk = MARKERS[`<${m[5]}>`];
        if (mk) out.push({ type: 'marker', marker: mk });
      } else {
        const f = makeFrame(m[3]!, { offset: m[4], module: m[2], decimal: true });
        out.push({ type: 'frame', frame: f });
      }
    }
    return out.length > 0 && rest.trim() === '' ? out : null;
  }
  if (c === 61 /* = */ && t.charCodeAt(1) === 62 /* > */) {
    const m = FTRACE_FRAME_RE.exec(t);
    if (!m) return null;
    const f = frameFromParts(m[1], m[2], m[3], m[4], m[5], true);
    return f ? [{ type: 'frame', frame: f }] : null;
  }
  const m = SYMBOL_FRAME_RE.exec(t);
  if (m) {
    // A bare word is not a frame: require an offset, a module, or a source location.
    if (m[3] === undefined && m[5] === undefined && m[6] === undefined) return null;
    const inline = m[6] !== undefined && m[6].includes('[inline]');
    const f = makeFrame(m[2]!, {
      offset: m[3],
      size: m[4],
      module: m[5],
      reliable: m[1] === undefined,
      inline,
    });
    return [{ type: 'frame', frame: f }];
  }
  return null;
}

/** Classifies one body line (prefixes already stripped) for stack assembly. */
export function classifyStackLine(body: string): StackLine {
  let t = body.trim();
  if (t.length === 0) return { kind: 'empty' };
  if (t.length > 4096) return { kind: 'other' };

  // Old x86_64 prints `Call Trace: <IRQ> <ffff…>{…}` on one line.
  if (t.startsWith('Call Trace:') && t.length > 12) {
    const rest = t.slice(11).trim();
    if (rest.length > 0) {
      const inner = classifyStackLine(rest);
      if (inner.kind === 'frames') return inner;
    }
  }

  const tokens: StackToken[] = [];
  for (let m = MARKER_PREFIX_RE.exec(t); m; m = MARKER_PREFIX_RE.exec(t)) {
    const mk = MARKERS[m[1]!];
    if (mk) tokens.push({ type: 'marker', marker: mk });
    t = t.slice(m[0].length);
  }
  if (t.length === 0) return tokens.length > 0 ? { kind: 'frames', tokens } : { kind: 'empty' };
  if (/^=+$/.test(t) && tokens.length === 0 && body.startsWith(' ')) {
    return { kind: 'frames', tokens: [{ type: 'marker', marker: 'stack-switch' }] };
  }

  const frames = parseFrameText(t);
  if (frames) {
    if (frames.length === 0 && tokens.length === 0) return { kind: 'partial' };
    return { kind: 'frames', tokens: tokens.concat(frames) };
  }
  if (tokens.length > 0) {
    // A marker followed by an address alone (wrapped) still counts.
    if (/^\[<[0-9a-fA-F]+>\]\s*$/.test(t)) return { kind: 'frames', tokens };
  }
  if (/^\[<[0-9a-fA-F]+>\]\s*\??\s*$/.test(t)) return { kind: 'partial' };
  const tail = /^\[([\w-]+)\](?:\s+\(\d+\))?$/.exec(t);
  if (tail) return { kind: 'module-tail', module: tail[1]! };

  const c = t.charCodeAt(0);
  if (c === 82 /* R */ || c === 69 /* E */ || c === 73 /* I */) {
    const r = RIP_RE.exec(t);
    if (r) {
      // `RIP: 0033:` / i386 `EIP: 0073:` are user code segments.
      const cs = r[1];
      const user = cs !== undefined && /^00(?:33|73|23|2b)$/i.test(cs);
      if (user) return { kind: 'regs', mode: 'user' };
      if (r[2] !== undefined) {
        return {
          kind: 'regs',
          mode: 'kernel',
          frame: makeFrame(r[2], {
            offset: r[3],
            size: r[4],
            module: r[5],
            inline: t.includes('[inline]'),
          }),
        };
      }
      if (r[6] !== undefined) {
        if (/^0x0*[0-7][0-9a-f]{0,11}$/i.test(r[6]) && r[6].length < 16)
          return { kind: 'regs', mode: 'user' };
        return { kind: 'regs', mode: 'kernel' };
      }
      if (cs !== undefined) return { kind: 'regs', mode: 'kernel' };
    }
  }
  // ARM `pc : [<c041c380>]    lr : [<c0418d68>]    psr: …` repeats `PC is at` as numbers.
  if (/^pc\s*:\s*\[</.test(t)) return { kind: 'skip' };
  const p = PC_RE.exec(t);
  if (p) {
    if (p[1] !== undefined) {
      return {
        kind: 'regs',
        mode: 'kernel',
        frame: makeFrame(p[1], { offset: p[2], size: p[3], module: p[4] }),
      };
    }
    const addr = p[5] ?? '';
    // A user-space pc has no symbol and a low address (below the kernel half).
    const hex = addr.replace(/^0x/, '');
    const user = hex.length < 16 ? !/^[c-f]/i.test(hex.padStart(8, '0')) : /^0000/.test(hex);
    return { kind: 'regs', mode: user ? 'user' : 'kernel' };
  }

  if (CPU_LINE_RE.test(t)) return { kind: 'context', cpuLine: true };
  if (CONTEXT_RE.test(t)) return { kind: 'context', cpuLine: false };
  for (const re of SKIP_RES) if (re.test(t)) return { kind: 'skip' };
  return { kind: 'other' };
}
