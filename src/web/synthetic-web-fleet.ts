// Pure: the synthetic fleet (src/bundle/synthetic-fleet.ts) with the two facts the web view
// filters on and that fleet does not vary: card names and capture backends. Deterministic
// for an index. SYNTHETIC: for tests and bench:web, never about real machines.
import type { Bundle, CaptureBackend } from '../bundle/schema.js';
import { syntheticBundle } from '../bundle/synthetic-fleet.js';

const CARD_NAMES: Record<string, string[]> = {
  snd_hda_intel: ['HDA Intel PCH', 'HDA ATI HDMI'],
  snd_usb_audio: ['Scarlett 2i2 USB', 'USB Audio CODEC'],
};
const BACKENDS: CaptureBackend[] = ['xrun_debug', 'xrun_debug', 'kprobe', 'tracepoint'];

/** The i-th bundle of a synthetic fleet with card names and capture backends varied per machine. */
export function syntheticWebBundle(base: Bundle, i: number, machines = 5000): Bundle {
  const b = syntheticBundle(base, i, machines);
  const m = parseInt(b.machineId.slice(1), 16);
  const card = b.host.cards[0]!;
  const names = CARD_NAMES[card.driver];
  const name = names ? names[m % names.length]! : card.name;
  b.host = { ...b.host, cards: [{ ...card, name }] };
  if (b.params) b.params = { ...b.params, captureBackend: BACKENDS[m % BACKENDS.length]! };
  return b;
}
