// The two byte scans of analyze's idle fast path — "count the line ends in this range" and
// "where does the next header trigger start" — run over every byte of a log, so they set
// its speed on ordinary (sparse) logs. Buffer.indexOf needs one native call per line to
// count lines and one pass per trigger. This module does both with WebAssembly SIMD, 16
// bytes per step, in one pass each: the program below is assembled here from its opcodes
// (no binary blob, no build step). Where WebAssembly SIMD is missing, or a chunk does not fit
// the scan memory, the same answers come from the Buffer.indexOf version (scanWithBuffer),
// which the tests compare it with.

/** The header triggers (see analyze-files.ts): every ALSA header contains one. */
// `inva`: `invalid position: , pos = …` wrapped after the stream name loses `, pos` to the cut.
export const TRIGGER_TEXTS = ['XRUN', 'xrun', 'PCM:', 'Unexp', 'BUG:', ', pos', 'inva'] as const;

export interface ByteScan {
  /** Number of LF bytes in buf[start, end). */
  countLineEnds(buf: Buffer, start: number, end: number): number;
  /** Start of the first trigger lying wholly in buf[start, end), or -1. */
  findTrigger(buf: Buffer, start: number, end: number): number;
}

const TRIGGER_BUFFERS = TRIGGER_TEXTS.map((s) => Buffer.from(s, 'latin1'));

/** The portable version (Buffer.indexOf): the reference and the fallback. */
export const scanWithBuffer: ByteScan = {
  countLineEnds(buf, start, end) {
    let n = 0;
    for (let p = buf.indexOf(10, start); p >= 0 && p < end; p = buf.indexOf(10, p + 1)) n++;
    return n;
  },
  findTrigger(buf, start, end) {
    let best = -1;
    for (const t of TRIGGER_BUFFERS) {
      const p = buf.indexOf(t, start);
      if (p >= 0 && p + t.length <= end && (best < 0 || p < best)) best = p;
    }
    return best;
  },
};

// ---- a minimal WebAssembly assembler (only what the two functions need) ----

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
};
const sleb = (v: bigint): number[] => {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
};
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];

// Opcodes.
const I32 = 0x7f;
const I64 = 0x7e;
const V128 = 0x7b;
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const RETURN = 0x0f;
const EMPTY = 0x40;
const GET = 0x20;
const SET = 0x21;
const I32_CONST = 0x41;
const I64_CONST = 0x42;
const I32_LOAD = [0x28, 0x00, 0x00];
const I64_LOAD = [0x29, 0x00, 0x00];
const I32_LOAD8_U = [0x2d, 0x00, 0x00];
const I32_EQZ = 0x45;
const I32_EQ = 0x46;
const I32_GT_U = 0x4b;
const I32_GE_U = 0x4f;
const I64_EQ = 0x51;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_AND = 0x71;
const I32_OR = 0x72;
const I32_CTZ = 0x68;
const I32_POPCNT = 0x69;
const I64_AND = 0x83;
const V128_LOAD = [0xfd, 0x00, 0x00, 0x00];
const I8X16_SPLAT = [0xfd, 0x0f];
const I8X16_EQ = [0xfd, 0x23];
const V128_OR = [0xfd, 0x50];
const I8X16_BITMASK = [0xfd, 0x64];

const le32 = (s: string): bigint => {
  const b = Buffer.from(s, 'latin1');
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
};
const i32c = (v: bigint): number[] => [I32_CONST, ...sleb(BigInt.asIntN(32, v))];
const i64c = (v: bigint): number[] => [I64_CONST, ...sleb(BigInt.asIntN(64, v))];

// count_line_ends(p, end): locals 0 p, 1 end, 2 acc (i32), 3 nl (v128).
const COUNT_BODY: number[] = [
  ...vec([
    [1, I32],
    [1, V128],
  ]),
  ...i32c(10n),
  ...I8X16_SPLAT,
  SET,
  3,
  BLOCK,
  EMPTY,
  LOOP,
  EMPTY,
  // while (p + 16 <= end)
  GET,
  0,
  ...i32c(16n),
  I32_ADD,
  GET,
  1,
  I32_GT_U,
  BR_IF,
  1,
  GET,
  2,
  GET,
  0,
  ...V128_LOAD,
  GET,
  3,
  ...I8X16_EQ,
  ...I8X16_BITMASK,
  I32_POPCNT,
  I32_ADD,
  SET,
  2,
  GET,
  0,
  ...i32c(16n),
  I32_ADD,
  SET,
  0,
  BR,
  0,
  END,
  END,
  BLOCK,
  EMPTY,
  LOOP,
  EMPTY,
  // while (p < end)
  GET,
  0,
  GET,
  1,
  I32_GE_U,
  BR_IF,
  1,
  GET,
  2,
  GET,
  0,
  ...I32_LOAD8_U,
  ...i32c(10n),
  I32_EQ,
  I32_ADD,
  SET,
  2,
  GET,
  0,
  ...i32c(1n),
  I32_ADD,
  SET,
  0,
  BR,
  0,
  END,
  END,
  GET,
  2,
  END,
];

// is_trigger(q, end): 1 when a trigger starts at q and ends by `end`. Locals 0 q, 1 end, 2 w.
const FOUR = ['XRUN', 'xrun', 'PCM:', 'BUG:', 'inva'].map(le32);
const FIVE = ['Unexp', ', pos'].map(le32);
const CHECK_BODY: number[] = [
  ...vec([[1, I64]]),
  // if (q + 4 > end) return 0
  GET,
  0,
  ...i32c(4n),
  I32_ADD,
  GET,
  1,
  I32_GT_U,
  IF,
  EMPTY,
  ...i32c(0n),
  RETURN,
  END,
  GET,
  0,
  ...I32_LOAD,
  // four 4-byte comparisons, or'ed
  ...FOUR.flatMap((v, i) => [
    ...(i === 0 ? [] : [GET, 0, ...I32_LOAD]),
    ...i32c(v),
    I32_EQ,
    ...(i === 0 ? [] : [I32_OR]),
  ]),
  IF,
  EMPTY,
  ...i32c(1n),
  RETURN,
  END,
  // if (q + 5 > end) return 0
  GET,
  0,
  ...i32c(5n),
  I32_ADD,
  GET,
  1,
  I32_GT_U,
  IF,
  EMPTY,
  ...i32c(0n),
  RETURN,
  END,
  GET,
  0,
  ...I64_LOAD,
  ...i64c(0xffffffffffn),
  I64_AND,
  SET,
  2,
  ...FIVE.flatMap((v, i) => [GET, 2, ...i64c(v), I64_EQ, ...(i === 0 ? [] : [I32_OR])]),
  END,
];

// find_trigger(p, end): locals 0 p, 1 end, 2 m (i32), 3 q (i32), then one v128 splat per
// filter byte, then the 16 bytes at p, p+1, p+2 (v128). A position is a candidate when its
// first bytes are a trigger's filter: one byte where that byte is rare in logs (X P B), two
// or three where it is common ("0x", "USB", ", "), so the exact check runs seldom. Measured
// on the bench logs: 1 byte each 52 ms / 200 MB, 2 each 68 ms, 3 each 97 ms.
const FILTERS = ['X', 'xr', 'P', 'Un', 'B', ', p', 'inv'].map((t) => [...Buffer.from(t, 'latin1')]);
const FILTER_BYTES = FILTERS.flat().length;
const SPLAT = (i: number, k: number): number =>
  4 + FILTERS.slice(0, i).reduce((n, f) => n + f.length, 0) + k;
const LOADED = (k: number): number => 4 + FILTER_BYTES + k;
const V128_LOAD_AT = (offset: number): number[] => [0xfd, 0x00, 0x00, ...uleb(offset)];
const V128_AND = [0xfd, 0x4e];
const FIND_BODY: number[] = [
  ...vec([
    [2, I32],
    [FILTER_BYTES + 3, V128],
  ]),
  ...FILTERS.flat().flatMap((c, i) => [...i32c(BigInt(c)), ...I8X16_SPLAT, SET, 4 + i]),
  BLOCK,
  EMPTY,
  LOOP,
  EMPTY,
  GET,
  0,
  ...i32c(16n),
  I32_ADD,
  GET,
  1,
  I32_GT_U,
  BR_IF,
  1,
  // m = bitmask of the positions whose first bytes match a trigger's filter
  ...[0, 1, 2].flatMap((k) => [GET, 0, ...V128_LOAD_AT(k), SET, LOADED(k)]),
  ...FILTERS.flatMap((f, i) => [
    ...f.flatMap((_, k) => [
      GET,
      LOADED(k),
      GET,
      SPLAT(i, k),
      ...I8X16_EQ,
      ...(k === 0 ? [] : V128_AND),
    ]),
    ...(i === 0 ? [] : V128_OR),
  ]),
  ...I8X16_BITMASK,
  SET,
  2,
  BLOCK,
  EMPTY,
  LOOP,
  EMPTY,
  GET,
  2,
  I32_EQZ,
  BR_IF,
  1,
  GET,
  0,
  GET,
  2,
  I32_CTZ,
  I32_ADD,
  SET,
  3,
  GET,
  3,
  GET,
  1,
  0x10, // call
  0, // is_trigger
  IF,
  EMPTY,
  GET,
  3,
  RETURN,
  END,
  // m &= m - 1
  GET,
  2,
  GET,
  2,
  ...i32c(1n),
  I32_SUB,
  I32_AND,
  SET,
  2,
  BR,
  0,
  END,
  END,
  GET,
  0,
  ...i32c(16n),
  I32_ADD,
  SET,
  0,
  BR,
  0,
  END,
  END,
  // the last < 16 bytes, one at a time
  BLOCK,
  EMPTY,
  LOOP,
  EMPTY,
  GET,
  0,
  GET,
  1,
  I32_GE_U,
  BR_IF,
  1,
  GET,
  0,
  GET,
  1,
  0x10,
  0,
  IF,
  EMPTY,
  GET,
  0,
  RETURN,
  END,
  GET,
  0,
  ...i32c(1n),
  I32_ADD,
  SET,
  0,
  BR,
  0,
  END,
  END,
  ...i32c(-1n),
  END,
];

/** Bytes of each of the two scan regions (a read window and a copy area). */
export const SCAN_REGION_BYTES = 4 * 1024 * 1024;
// Two regions plus one page of padding: the 8-byte loads near a region's end stay in bounds.
const PAGES = (2 * SCAN_REGION_BYTES) / 65536 + 1;

function moduleBytes(): Uint8Array {
  const fnType = [0x60, ...vec([[I32], [I32]]), ...vec([[I32]])];
  const body = (code: number[]): number[] => [...uleb(code.length), ...code];
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec([fnType])),
    ...section(3, vec([[0], [0], [0]])),
    ...section(5, vec([[0x00, ...uleb(PAGES)]])),
    ...section(
      7,
      vec([
        [...name('mem'), 0x02, 0],
        [...name('count_line_ends'), 0x00, 1],
        [...name('find_trigger'), 0x00, 2],
      ]),
    ),
    ...section(10, vec([body(CHECK_BODY), body(COUNT_BODY), body(FIND_BODY)])),
  ]);
}

// The part of the WebAssembly JS API used here (this project's TypeScript libs omit it).
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;

/** Compiles the program once per process; null where WebAssembly SIMD is not available. */
function compiledModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasmApi ? new wasmApi.Module(moduleBytes()) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** A scanner with its own memory: the read window to fill, and scans of any buffer. */
export interface SimdByteScan extends ByteScan {
  /** Read file chunks straight into this (no copy before scanning). */
  readonly window: Buffer;
}

/**
 * Creates a SIMD scanner with its own memory (one per analysis: concurrent analyses must not
 * share a window), or null where WebAssembly SIMD is unavailable. Buffers other than the
 * window are copied into its second region when they fit, else scanned with Buffer.indexOf.
 */
export function createSimdByteScan(): SimdByteScan | null {
  const mod = compiledModule();
  if (!mod || !wasmApi) return null;
  const inst = new wasmApi.Instance(mod, {});
  const mem = inst.exports['mem'] as { buffer: ArrayBuffer };
  const count = inst.exports['count_line_ends'] as (p: number, end: number) => number;
  const find = inst.exports['find_trigger'] as (p: number, end: number) => number;
  const heap = Buffer.from(mem.buffer);
  const window = heap.subarray(0, SCAN_REGION_BYTES);
  const copyArea = SCAN_REGION_BYTES;
  // The last buffer copied in, so repeated scans of one chunk copy it once.
  let copied: Buffer | null = null;
  const base = (buf: Buffer): number => {
    if (buf.buffer === mem.buffer) return buf.byteOffset;
    if (buf.length > SCAN_REGION_BYTES) return -1;
    if (copied !== buf) {
      buf.copy(heap, copyArea);
      copied = buf;
    }
    return copyArea;
  };
  return {
    window,
    countLineEnds(buf, start, end) {
      if (end <= start) return 0;
      const b = base(buf);
      return b < 0 ? scanWithBuffer.countLineEnds(buf, start, end) : count(b + start, b + end);
    },
    findTrigger(buf, start, end) {
      if (end <= start) return -1;
      const b = base(buf);
      if (b < 0) return scanWithBuffer.findTrigger(buf, start, end);
      const at = find(b + start, b + end);
      return at < 0 ? -1 : at - b;
    },
  };
}
