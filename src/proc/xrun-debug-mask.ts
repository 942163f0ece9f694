// Decodes an xrun_debug value into named bits. The meaning changed over the kernel's life
// (reference: kernel-log-formats.md §3): up to 2.6.29 it was a level (0–2), from 2.6.30 a
// bitmask with bits 0–6, and since 3.19 only bits 0–2 remain. A user reading `status` on a
// 2.6.32 box that shows 29 must learn which bits do something there.

import { UsageError } from '../errors.js';

/** One set bit with its kernel name and what it does. */
export interface XrunDebugBit {
  bit: number;
  name: string;
  meaning: string;
  /** Kernels on which this bit does something. */
  kernels: string;
}

export interface DecodedXrunDebugMask {
  mask: number;
  bits: XrunDebugBit[];
  /** Set bits no kernel ever defined. */
  unknownBits: number[];
  notes: string[];
}

const BITS: readonly Omit<XrunDebugBit, 'bit'>[] = [
  { name: 'BASIC', meaning: 'print XRUN and jiffies-check messages', kernels: '2.6.30+' },
  { name: 'STACK', meaning: 'dump the stack at each XRUN / jiffies check', kernels: '2.6.30+' },
  {
    name: 'JIFFIESCHECK',
    meaning: 'additional jiffies check of the hw pointer',
    kernels: '2.6.30+',
  },
  { name: 'PERIODUPDATE', meaning: 'log hw_ptr at each period update', kernels: '2.6.30–3.18' },
  { name: 'HWPTRUPDATE', meaning: 'log at each snd_pcm_update_hw_ptr', kernels: '2.6.30–3.18' },
  { name: 'LOG', meaning: 'show the last 10 positions on error', kernels: '2.6.34–3.18' },
  { name: 'LOGONCE', meaning: 'show the positions only once', kernels: '2.6.34–3.18' },
];

/** The bits xrunhunt sets for a diagnosis: messages + stack dump (the classic `echo 3`). */
export const DEFAULT_XRUN_DEBUG_MASK = 3;

/** Parses `major.minor.patch` from a release string (`6.1.0-57-amd64` → [6,1,0]). */
function parseRelease(release: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(release);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

function olderThan(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  return false;
}

/** Names the bits of an xrun_debug value, with notes for the kernel era when it is known. */
export function decodeXrunDebugMask(mask: number, kernelRelease?: string): DecodedXrunDebugMask {
  const rel = kernelRelease === undefined ? undefined : parseRelease(kernelRelease);
  const notes: string[] = [];
  if (rel && olderThan(rel, [2, 6, 30])) {
    const level =
      mask === 0
        ? 'off'
        : mask === 1
          ? 'print XRUN messages'
          : 'print XRUN messages and dump the stack';
    notes.push(
      `kernel ${kernelRelease} reads xrun_debug as a level (0–2), not a bitmask: ${mask} = ${level}`,
    );
    return { mask, bits: [], unknownBits: [], notes };
  }
  const bits: XrunDebugBit[] = [];
  const unknownBits: number[] = [];
  for (let bit = 0; bit < 31; bit++) {
    if ((mask & (1 << bit)) === 0) continue;
    const def = BITS[bit];
    if (def) bits.push({ bit, ...def });
    else unknownBits.push(bit);
  }
  const legacy = bits.filter((b) => b.bit >= 3);
  if (legacy.length > 0) {
    const modern = rel !== undefined && !olderThan(rel, [3, 19, 0]);
    notes.push(
      `bit${legacy.length > 1 ? 's' : ''} ${legacy.map((b) => b.bit).join(', ')} (${legacy.map((b) => b.name).join(', ')}) ` +
        (modern
          ? `do nothing on kernel ${kernelRelease} (removed in 3.19)`
          : 'only do something on kernels 2.6.30–3.18'),
    );
  }
  if (unknownBits.length > 0)
    notes.push(`bits ${unknownBits.join(', ')} are not defined by any kernel`);
  if (mask !== 0 && (mask & 1) === 0)
    notes.push('bit 0 (BASIC) is off: no XRUN messages are printed');
  if ((mask & 2) !== 0 && (mask & 1) === 0)
    notes.push('bit 1 (STACK) needs bit 0 to print anything');
  return { mask, bits, unknownBits, notes };
}

/** Parses a user-given mask (`3`, `0x3`, `0b11`) into an integer 0..127; bad input is a UsageError. */
export function parseXrunDebugMask(text: string): number {
  const t = text.trim();
  let n: number;
  if (/^0x[0-9a-f]+$/i.test(t)) n = parseInt(t.slice(2), 16);
  else if (/^0b[01]+$/i.test(t)) n = parseInt(t.slice(2), 2);
  else if (/^\d+$/.test(t)) n = Number(t);
  else throw new UsageError(`expected a mask such as 3, 0x3 or 0b11, got "${text}"`);
  if (n > 127) throw new UsageError(`expected a mask between 0 and 127 (bits 0–6), got ${n}`);
  return n;
}
