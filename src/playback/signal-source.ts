// The audio the writer plays: silence, or a quiet 440 Hz sine (to hear that playback is
// alive). Returns period-sized buffers, refilled in place. Nothing is allocated per period:
// samples go through a DataView (explicitly little-endian) as integers or a float inside one
// loop, and the phase carried between periods lives in a Float64Array (a closure-captured
// `let` would get a fresh heap box for each new fractional value: 64 a period).
import type { GrantedParams } from '../alsa/pcm-binding.js';
import type { SignalKind } from './types.js';

// -20 dBFS: audible, not loud, on whatever the user has plugged in.
const SINE_AMPLITUDE = 0.1;
const SINE_HZ = 440;

// How each format a sine makes sense in stores one sample; others fall back to silence.
const SAMPLE_ENCODINGS = {
  S16_LE: { kind: 'int16', scale: 32767 },
  S32_LE: { kind: 'int32', scale: 2147483647 },
  FLOAT_LE: { kind: 'float32', scale: 1 },
} as const;

type Encoding = (typeof SAMPLE_ENCODINGS)[keyof typeof SAMPLE_ENCODINGS];

function encodingOf(format: string): Encoding | null {
  return Object.hasOwn(SAMPLE_ENCODINGS, format)
    ? SAMPLE_ENCODINGS[format as keyof typeof SAMPLE_ENCODINGS]
    : null;
}

/** Makes the per-period buffer source for the write loop. */
export function createSignalSource(kind: SignalKind, g: GrantedParams): () => Buffer {
  const bytes = g.periodFrames * g.frameBytes;
  const buf = Buffer.alloc(bytes);
  const encoding = encodingOf(g.format);
  if (kind === 'silence' || encoding === null) return () => buf;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const { periodFrames, channels, frameBytes } = g;
  const sampleBytes = frameBytes / channels;
  const step = (2 * Math.PI * SINE_HZ) / g.rate;
  const twoPi = 2 * Math.PI;
  const phaseSlot = new Float64Array(1);
  const { kind: sampleKind, scale } = encoding;
  return () => {
    let phase = phaseSlot[0]!;
    for (let f = 0; f < periodFrames; f++) {
      const v = SINE_AMPLITUDE * Math.sin(phase);
      phase += step;
      if (phase > twoPi) phase -= twoPi;
      const at = f * frameBytes;
      for (let c = 0; c < channels; c++) {
        const o = at + c * sampleBytes;
        if (sampleKind === 'int16') view.setInt16(o, Math.round(v * scale), true);
        else if (sampleKind === 'int32') view.setInt32(o, Math.round(v * scale), true);
        else view.setFloat32(o, v, true);
      }
    }
    phaseSlot[0] = phase;
    return buf;
  };
}
