// The `--wakeup period|timer` value, checked once for play, session and stress.
import { UsageError } from '../errors.js';
import type { WakeupMode } from '../alsa/pcm-binding.js';

/** The modes, in the order help and errors list them. */
export const WAKEUP_MODES: readonly WakeupMode[] = ['period', 'timer'];

/** Turns a --wakeup value into a mode; anything else is a usage error naming both choices. */
export function parseWakeupMode(value: string | undefined): WakeupMode {
  if (value === undefined) return 'period';
  const mode = WAKEUP_MODES.find((m) => m === value);
  if (mode) return mode;
  throw new UsageError(
    `invalid --wakeup "${value}": expected period (the period interrupt wakes the writer) or timer (its own timer, as PipeWire)`,
  );
}
