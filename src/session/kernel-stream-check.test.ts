// Issue 30 item 8: a session on "default" reported "period 128 × 2 (42.67 ms buffer)" while
// dmix ran the kernel stream at 2048 frames; the report now says so, with both shapes.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernelStreamMismatch, readKernelStreamShapes } from './kernel-stream-check.js';

const work = mkdtempSync(join(tmpdir(), 'xrunhunt-kstream-'));
after(() => rmSync(work, { recursive: true, force: true }));

const DMIX_HW =
  'access: MMAP_INTERLEAVED\nformat: S16_LE\nsubformat: STD\nchannels: 2\nrate: 48000 (48000/1)\nperiod_size: 1024\nbuffer_size: 2048\n';

test('hw_params of the open substreams are read; closed ones are left out', () => {
  const pcm = join(work, 'pcm0p');
  for (const [sub, text] of [
    ['sub0', DMIX_HW],
    ['sub1', 'closed\n'],
  ]) {
    mkdirSync(join(pcm, sub!), { recursive: true });
    writeFileSync(join(pcm, sub!, 'hw_params'), text!);
  }
  assert.deepEqual(readKernelStreamShapes(pcm), [
    { periodFrames: 1024, bufferFrames: 2048, rateHz: 48000 },
  ]);
  assert.deepEqual(readKernelStreamShapes(join(work, 'missing')), []);
});

test('a player on dmix is told the kernel stream is not its own; a matching one is not', () => {
  const granted = { periodFrames: 128, bufferFrames: 256, rateHz: 48000 };
  const dmix = { periodFrames: 1024, bufferFrames: 2048, rateHz: 48000 };
  const w = kernelStreamMismatch('default', 'pcmC0D0p', granted, [dmix]);
  assert.match(w!, /pcmC0D0p runs at period 1024, buffer 2048 frames at 48000 Hz \(42\.67 ms/);
  assert.match(w!, /not the period 128, buffer 256 at 48000 Hz \(5\.33 ms\) default granted/);
  assert.match(w!, /not kernel XRUNs/);
  assert.equal(kernelStreamMismatch('hw:0,0', 'pcmC0D0p', granted, [granted]), null);
  assert.equal(kernelStreamMismatch('default', 'pcmC0D0p', granted, []), null);
  assert.equal(kernelStreamMismatch('default', 'pcmC0D0p', granted, [dmix, granted]), null);
});
