// The SIMD scans must answer exactly like Buffer.indexOf: on random bytes dense in trigger
// first letters and partial triggers, at every offset and length (16-byte steps and tails),
// for buffers in the read window, copied in, and too big to copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createSimdByteScan,
  SCAN_REGION_BYTES,
  scanWithBuffer,
  TRIGGER_TEXTS,
} from './byte-scan.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// Pieces that make near-misses likely: trigger prefixes, first letters, line ends.
const PIECES = [
  ...TRIGGER_TEXTS,
  'XRU',
  'xru',
  'PCM',
  'Unex',
  'BUG',
  ', po',
  'X',
  'x',
  ',',
  '\n',
  'a',
  ' ',
  '\r',
];

function randomText(r: () => number, n: number): Buffer {
  let s = '';
  while (s.length < n)
    s +=
      r() < 0.6
        ? PIECES[Math.floor(r() * PIECES.length)]!
        : 'abcdefghij'.slice(0, Math.floor(r() * 10));
  return Buffer.from(s.slice(0, n), 'latin1');
}

const simd = createSimdByteScan();

test('WebAssembly SIMD is available on this Node (the fast path is in use)', () => {
  assert.ok(simd, 'createSimdByteScan() returned null');
});

test(
  'SIMD scans equal Buffer.indexOf at every start and end',
  { skip: simd ? false : 'no SIMD' },
  () => {
    const r = rng(42);
    for (let round = 0; round < 300; round++) {
      const buf = randomText(r, 1 + Math.floor(r() * 200));
      for (let start = 0; start <= buf.length; start += 1 + Math.floor(r() * 5)) {
        for (const end of [buf.length, Math.min(buf.length, start + Math.floor(r() * 40))]) {
          assert.equal(
            simd!.countLineEnds(buf, start, end),
            scanWithBuffer.countLineEnds(buf, start, end),
            `count ${JSON.stringify(buf.toString('latin1'))} [${start}, ${end})`,
          );
          assert.equal(
            simd!.findTrigger(buf, start, end),
            scanWithBuffer.findTrigger(buf, start, end),
            `find ${JSON.stringify(buf.toString('latin1'))} [${start}, ${end})`,
          );
        }
      }
    }
  },
);

test(
  'the read window, a copied buffer and one too big to copy give the same answers',
  { skip: simd ? false : 'no SIMD' },
  () => {
    const r = rng(7);
    const text = randomText(r, 100_000);
    text.copy(simd!.window, 0);
    const inWindow = simd!.window.subarray(0, text.length);
    const big = Buffer.alloc(SCAN_REGION_BYTES + 100, 0x61);
    text.copy(big, big.length - text.length);
    for (const start of [0, 1, 15, 16, 17, 5000, 99_990]) {
      const expectCount = scanWithBuffer.countLineEnds(text, start, text.length);
      const expectFind = scanWithBuffer.findTrigger(text, start, text.length);
      assert.equal(simd!.countLineEnds(inWindow, start, text.length), expectCount);
      assert.equal(simd!.countLineEnds(text, start, text.length), expectCount);
      assert.equal(simd!.findTrigger(inWindow, start, text.length), expectFind);
      assert.equal(simd!.findTrigger(text, start, text.length), expectFind);
      const off = big.length - text.length;
      assert.equal(simd!.countLineEnds(big, off + start, big.length), expectCount);
      assert.equal(
        simd!.findTrigger(big, off + start, big.length),
        expectFind < 0 ? -1 : expectFind + off,
      );
    }
  },
);
