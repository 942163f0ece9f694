// The modules a modular kernel (Debian's) must load in the guest before the payload: the drivers
// of the lab's sound cards (sound-cards.ts names them). Self-built lab kernels have them built
// in and need none. Pure: cards in, the lines of <results>/.lab/modules.sh out (run by
// lab/guest/init.sh with modprobe pointed at the unpacked package).
import { guestModules, type SoundCardName } from './sound-cards.js';

/** Module parameters the lab always wants. */
const MODULE_PARAMS: Record<string, string> = {
  // hrtimer mode serves 64-frame periods (the jiffies timer cannot), as on the self-built kernels.
  'snd-dummy': 'hrtimer=1',
};

// The shell lines that load the cards' drivers; a failure is reported and ends the script non-zero.
export function loadSoundModules(cards: readonly SoundCardName[]): string[] {
  const probe = (line: string) => `${line} || { echo "xrunhunt-lab: ${line} failed" >&2; exit 1; }`;
  const lines = guestModules(cards).map((m) =>
    probe(`modprobe ${m}${MODULE_PARAMS[m] ? ` ${MODULE_PARAMS[m]}` : ''}`),
  );
  return ['#!/bin/sh', ...lines, ''];
}
