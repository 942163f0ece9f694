import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeXrunDebugMask, parseXrunDebugMask } from './xrun-debug-mask.js';
import { UsageError } from '../errors.js';

test('mask 3 = messages + stack on a modern kernel, no notes', () => {
  const d = decodeXrunDebugMask(3, '6.1.0-57-amd64');
  assert.deepEqual(
    d.bits.map((b) => [b.bit, b.name]),
    [
      [0, 'BASIC'],
      [1, 'STACK'],
    ],
  );
  assert.deepEqual(d.notes, []);
});

test('mask 0 has no bits', () => {
  assert.deepEqual(decodeXrunDebugMask(0).bits, []);
});

test('old bits 3-6 are named, with a note that 3.19+ ignores them', () => {
  const d = decodeXrunDebugMask(29, '6.1.0'); // the ALSA wiki's "echo 29" = 1+4+8+16
  assert.deepEqual(
    d.bits.map((b) => b.name),
    ['BASIC', 'JIFFIESCHECK', 'PERIODUPDATE', 'HWPTRUPDATE'],
  );
  assert.match(d.notes.join('\n'), /3, 4 .*do nothing on kernel 6\.1\.0 \(removed in 3\.19\)/);
  const old = decodeXrunDebugMask(101, '2.6.35'); // 1+4+32+64
  assert.deepEqual(
    old.bits.map((b) => b.name),
    ['BASIC', 'JIFFIESCHECK', 'LOG', 'LOGONCE'],
  );
  assert.match(old.notes.join('\n'), /only do something on kernels 2\.6\.30–3\.18/);
});

test('kernels up to 2.6.29 read a level, not bits', () => {
  const d = decodeXrunDebugMask(2, '2.6.29.6');
  assert.deepEqual(d.bits, []);
  assert.match(d.notes[0]!, /level.*2 = print XRUN messages and dump the stack/);
  assert.equal(decodeXrunDebugMask(2, '2.6.30').bits[0]!.name, 'STACK');
});

test('undefined bits and STACK without BASIC are pointed out', () => {
  const d = decodeXrunDebugMask(2 | 256);
  assert.deepEqual(d.unknownBits, [8]);
  assert.match(d.notes.join('\n'), /bit 1 \(STACK\) needs bit 0/);
});

test('user masks: decimal, hex, binary; garbage and out of range are usage errors', () => {
  assert.equal(parseXrunDebugMask('3'), 3);
  assert.equal(parseXrunDebugMask('0x7'), 7);
  assert.equal(parseXrunDebugMask('0b101'), 5);
  assert.throws(() => parseXrunDebugMask('lots'), UsageError);
  assert.throws(() => parseXrunDebugMask('128'), /between 0 and 127/);
});
