// The audio the writer plays: silence, or a quiet 440 Hz sine (to hear that playback is
// alive). Returns period-sized buffers; the sine buffer is refilled in place (no allocation
// on the audio path).
import type { GrantedParams } from '../alsa/pcm-binding.js';
import type { SignalKind } from './types.js';

// -20 dBFS: audible, not loud, on whatever the user has plugged in.
const SINE_AMPLITUDE = 0.1;
const SINE_HZ = 440;

type SampleWriter = (buf: Buffer, offset: number, value: number) => void;

// Sample writers for the formats a sine makes sense in; others fall back to silence.
function sampleWriter(format: string): SampleWriter | null {
  switch (format) {
    case 'S16_LE':
      return (b, o, v) => b.writeInt16LE(Math.round(v * 32767), o);
    case 'S32_LE':
      return (b, o, v) => b.writeInt32LE(Math.round(v * 2147483647), o);
    case 'FLOAT_LE':
      return (b, o, v) => b.writeFloatLE(v, o);
    default:
      return null;
  }
}

/** Makes the per-period buffer source for the write loop. */
export function createSignalSource(kind: SignalKind, g: GrantedParams): () => Buffer {
  const bytes = g.periodFrames * g.frameBytes;
  const buf = Buffer.alloc(bytes);
  const write = sampleWriter(g.format);
  if (kind === 'silence' || write === null) return () => buf;
  const sampleBytes = g.frameBytes / g.channels;
  const step = (2 * Math.PI * SINE_HZ) / g.rate;
  let phase = 0;
  return () => {
    for (let f = 0; f < g.periodFrames; f++) {
      const v = SINE_AMPLITUDE * Math.sin(phase);
      phase += step;
      if (phase > 2 * Math.PI) phase -= 2 * Math.PI;
      for (let c = 0; c < g.channels; c++) write(buf, f * g.frameBytes + c * sampleBytes, v);
    }
    return buf;
  };
}
