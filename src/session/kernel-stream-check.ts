// What the kernel stream runs at, against what the player was granted. On a plug/dmix device
// ("default") the player's 128 × 2 is the plugin's buffer; the kernel stream under it has its
// own (dmix: 2048 frames), and the kernel's XRUN check sees only that one: a 20 ms stall the
// player counts as an xrun may never be a kernel XRUN. Said in the report, with the numbers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHwParams } from '../watch/stream-proc-formats.js';

/** A stream's period and buffer in frames. */
export interface StreamShape {
  periodFrames: number;
  bufferFrames: number;
  rateHz: number;
}

/**
 * The configured substreams of a kernel PCM, from its subN/hw_params (closed ones left out;
 * an unreadable one too: this is a report note, never a reason to stop).
 */
export function readKernelStreamShapes(pcmDir: string): StreamShape[] {
  let names: string[];
  try {
    names = readdirSync(pcmDir).filter((n) => /^sub\d+$/.test(n));
  } catch {
    return [];
  }
  const shapes: StreamShape[] = [];
  for (const name of names.sort()) {
    try {
      const hw = parseHwParams(readFileSync(join(pcmDir, name, 'hw_params'), 'utf8'));
      if (hw.periodFrames && hw.bufferFrames && hw.rateHz)
        shapes.push({
          periodFrames: hw.periodFrames,
          bufferFrames: hw.bufferFrames,
          rateHz: hw.rateHz,
        });
    } catch {
      // a substream that vanished between list and read
    }
  }
  return shapes;
}

const ms = (s: StreamShape): string => `${((s.bufferFrames * 1000) / s.rateHz).toFixed(2)} ms`;

/**
 * The warning when the kernel stream is not the player's (pure): null when they match, when
 * nothing is configured, or when several substreams are open (which one is ours is unknown).
 */
export function kernelStreamMismatch(
  device: string,
  pcm: string,
  granted: StreamShape,
  kernel: readonly StreamShape[],
): string | null {
  if (kernel.length !== 1) return null;
  const k = kernel[0]!;
  if (
    k.periodFrames === granted.periodFrames &&
    k.bufferFrames === granted.bufferFrames &&
    k.rateHz === granted.rateHz
  )
    return null;
  return (
    `the kernel stream ${pcm} runs at period ${k.periodFrames}, buffer ${k.bufferFrames} frames at ${k.rateHz} Hz (${ms(k)}; its hw_params), ` +
    `not the period ${granted.periodFrames}, buffer ${granted.bufferFrames} at ${granted.rateHz} Hz (${ms(granted)}) ${device} granted: ` +
    `a plugin (plug, dmix, rate conversion) sits between them. The kernel detects an XRUN only on its own buffer, so userspace xruns counted here are the plugin's, not kernel XRUNs; ` +
    `play on the card's hw: device (e.g. --device hw:CARD=…,DEV=0) to measure the kernel stream itself.`
  );
}
