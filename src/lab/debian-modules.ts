// The modules a modular kernel (Debian's) must load in the guest before the payload: the sound
// card driver of the lab's card. Self-built lab kernels have snd-dummy built in and need none.
// Pure: a card in, the lines of <results>/.lab/modules.sh out (run by lab/guest/init.sh with
// modprobe pointed at the unpacked package).

/** The lab's sound cards on a modular kernel (the cards helper adds hda, usb, ac97). */
export type LabCard = 'dummy';

// The shell lines that load the card's driver; a failure is reported and ends the script non-zero.
export function loadSoundModules(card: LabCard): string[] {
  const probe = (line: string) => `${line} || { echo "xrunhunt-lab: ${line} failed" >&2; exit 1; }`;
  switch (card) {
    case 'dummy':
      // hrtimer mode serves 64-frame periods (the jiffies timer cannot), as on the self-built kernels.
      return ['#!/bin/sh', probe('modprobe snd-dummy hrtimer=1'), ''];
  }
}
