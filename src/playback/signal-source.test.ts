// The period buffers the writer plays: silence stays zero, the sine is 440 Hz at -20 dBFS in
// every channel, continuous across periods, in each format's own sample encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GrantedParams } from '../alsa/pcm-binding.js';
import { createSignalSource } from './signal-source.js';

function params(format: string, channels: number, sampleBytes: number): GrantedParams {
  return {
    rate: 48000,
    channels,
    format,
    periodFrames: 64,
    bufferFrames: 128,
    frameBytes: channels * sampleBytes,
  };
}

// The expected sine, computed independently: frame k of the stream is 0.1·sin(2π·440·k/48000),
// with the phase wrapped the way the generator wraps it (a running sum, minus 2π past 2π).
function expectedSine(frames: number): number[] {
  const step = (2 * Math.PI * 440) / 48000;
  const out: number[] = [];
  let phase = 0;
  for (let k = 0; k < frames; k++) {
    out.push(0.1 * Math.sin(phase));
    phase += step;
    if (phase > 2 * Math.PI) phase -= 2 * Math.PI;
  }
  return out;
}

test('silence is one zeroed period buffer, returned every time', () => {
  const g = params('S16_LE', 2, 2);
  const next = createSignalSource('silence', g);
  const a = next();
  const b = next();
  assert.equal(a, b);
  assert.equal(a.length, 64 * 4);
  assert.ok(a.every((x) => x === 0));
});

test('the S16_LE sine matches 440 Hz at amplitude 0.1 in both channels over 300 periods', () => {
  const g = params('S16_LE', 2, 2);
  const next = createSignalSource('sine', g);
  const want = expectedSine(64 * 300);
  for (let p = 0; p < 300; p++) {
    const buf = next();
    for (let f = 0; f < 64; f++) {
      // + 0: an int16 has no -0 (Math.round gives -0 just below zero).
      const v = Math.round(want[p * 64 + f]! * 32767) + 0;
      assert.equal(buf.readInt16LE(f * 4), v, `period ${p} frame ${f} left`);
      assert.equal(buf.readInt16LE(f * 4 + 2), v, `period ${p} frame ${f} right`);
    }
  }
});

test('S32_LE and FLOAT_LE sines use their own encodings', () => {
  const want = expectedSine(64 * 3);
  const s32 = createSignalSource('sine', params('S32_LE', 1, 4));
  const f32 = createSignalSource('sine', params('FLOAT_LE', 1, 4));
  for (let p = 0; p < 3; p++) {
    const a = s32();
    const b = f32();
    for (let f = 0; f < 64; f++) {
      const v = want[p * 64 + f]!;
      assert.equal(a.readInt32LE(f * 4), Math.round(v * 2147483647) + 0);
      assert.equal(b.readFloatLE(f * 4), Math.fround(v));
    }
  }
});

test('a format without a sine writer plays silence', () => {
  const next = createSignalSource('sine', params('S24_3LE', 2, 3));
  assert.ok(next().every((x) => x === 0));
});
