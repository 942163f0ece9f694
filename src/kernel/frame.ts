// One stack frame as the kernel printed it, normalised so the same function compares
// equal across kernel builds (no offsets, addresses, compiler clone suffixes).

/** Execution context a frame ran in, from markers (`<IRQ>`, `</IRQ>`, `<NMI>`) or the IRQ boundary. */
export type FrameContext = 'irq' | 'softirq' | 'nmi' | 'task';

export interface Frame {
  /** Normalised function name (`__snd_pcm_xrun.cold` → `__snd_pcm_xrun`); `0x…` when unsymbolized. */
  function: string;
  /** The symbol exactly as printed (with suffixes). */
  rawSymbol: string;
  offset?: number;
  size?: number;
  module?: string;
  /** False for `?` frames (unvalidated stack words). */
  reliable: boolean;
  context: FrameContext;
  /** Syzkaller-style `[inline]` frame: inlined into the next real frame. */
  inline?: boolean;
  /** Printed as a raw address without a symbol (no kallsyms). */
  unsymbolized?: boolean;
}

// GCC/LLVM clone and section suffixes: `.cold`, `.cold.95`, `.isra.0`, `.constprop.0`,
// `.part.7`, `.lto_priv.0`, `.llvm.123456`, `.localalias`, `.specialized.1`.
const SUFFIX_RE =
  /(?:\.(?:cold|isra|constprop|part|lto_priv|llvm|localalias|clone|specialized|str|plt|0)(?:\.\d+)*|\.\d+)+$/;

/** Strips compiler clone suffixes so one function has one name in every build. */
export function normaliseFunction(symbol: string): string {
  if (symbol.startsWith('0x')) return symbol.toLowerCase();
  const stripped = symbol.replace(SUFFIX_RE, '');
  return stripped.length > 0 ? stripped : symbol;
}

/** Strips module version/taint decorations: `snd_pcm` stays, `nvidia(POE)` → `nvidia`. */
export function normaliseModule(module: string | undefined): string | undefined {
  if (module === undefined) return undefined;
  const m = module.replace(/\(.*\)$/, '').trim();
  return m.length > 0 ? m : undefined;
}

/** Builds a frame from printed parts; offsets are hex strings (`0x` optional) or decimal. */
export function makeFrame(
  rawSymbol: string,
  parts: {
    offset?: string | undefined;
    size?: string | undefined;
    module?: string | undefined;
    reliable?: boolean;
    decimal?: boolean;
    inline?: boolean;
  } = {},
): Frame {
  const unsymbolized = /^0x[0-9a-f]+$/i.test(rawSymbol);
  const frame: Frame = {
    function: normaliseFunction(rawSymbol),
    rawSymbol,
    reliable: parts.reliable ?? true,
    context: 'task',
  };
  const radix = parts.decimal ? 10 : 16;
  if (parts.offset !== undefined) {
    const n = parseInt(parts.offset.replace(/^0x/i, ''), radix);
    if (Number.isFinite(n)) frame.offset = n;
  }
  if (parts.size !== undefined) {
    const n = parseInt(parts.size.replace(/^0x/i, ''), radix);
    if (Number.isFinite(n)) frame.size = n;
  }
  const module = normaliseModule(parts.module);
  if (module !== undefined) frame.module = module;
  if (parts.inline) frame.inline = true;
  if (unsymbolized) frame.unsymbolized = true;
  return frame;
}
