// `--wakeup period|timer`: one spec, so play, session and stress say the same thing.
import type { OptionSpec } from './command.js';

/** Who wakes the player's writer: the period interrupt, or its own timer (PipeWire's shape). */
export const WAKEUP_OPTION = {
  type: 'string',
  choices: ['period', 'timer'],
  valueName: 'MODE',
  default: 'period',
  description:
    "who wakes the writer: period (the period interrupt, as aplay and JACK) or timer (its own timer, period interrupts off where the device allows: PipeWire's desktop mode)",
} as const satisfies OptionSpec;
