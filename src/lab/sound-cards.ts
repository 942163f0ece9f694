// The lab's sound hardware (`lab … --card dummy|hda|usb|ac97`): for each card name, the QEMU
// devices that emulate it, the kernel options and modules its Linux driver needs, and the ALSA
// card id the driver gives it in the guest. Pure: names in, argv and facts out.
import { UsageError, XrunhuntError } from '../errors.js';
import { configMap, parseKernelConfig } from './kernel-config.js';

export type SoundCardName = 'dummy' | 'hda' | 'usb' | 'ac97';

/** Every card `--card` accepts, in the order the help lists them. */
export const SOUND_CARD_NAMES: readonly SoundCardName[] = ['dummy', 'hda', 'usb', 'ac97'];

/** The card a lab run gets when `--card` is not given: fast, built in, no QEMU device. */
export const DEFAULT_SOUND_CARD: SoundCardName = 'dummy';

/** One emulated (or virtual) card and its guest driver. */
export interface SoundCard {
  name: SoundCardName;
  /** What plays the sound, for help text and notes. */
  summary: string;
  /** QEMU `-device` values, in order; `{audiodev}` stands for the card's audiodev id. */
  qemuDevices: readonly string[];
  /** Kernel options the driver needs (=y or =m); the first one is the driver itself. */
  kernelOptions: readonly string[];
  /** Modules a modular kernel loads for it (modprobe names, dependencies first). */
  modules: readonly string[];
  /** The ALSA card id the driver registers (the `[Id]` column of /proc/asound/cards). */
  alsaId: string;
}

/*
 * Card ids as the drivers register them (ALSA takes the last word of the card's short name,
 * alphanumerics only, prefixed with its first letter when it starts with a digit): "HDA Intel"
 * → Intel; QEMU's usb-audio product "QEMU USB Audio" → Audio; "Intel 82801AA-ICH" → I82801AAICH.
 * Seen in /proc/asound/cards of the debug kernel in the lab (docs/lab.md §Sound cards).
 */
const CARDS: Readonly<Record<SoundCardName, SoundCard>> = {
  dummy: {
    name: 'dummy',
    summary: 'snd-dummy: an hrtimer in softirq, no device, no hardware interrupt',
    qemuDevices: [],
    kernelOptions: ['CONFIG_SND_DUMMY', 'CONFIG_HIGH_RES_TIMERS'],
    modules: ['snd-dummy'],
    alsaId: 'Dummy',
  },
  hda: {
    name: 'hda',
    summary:
      'QEMU ich9-intel-hda + hda-output: snd-hda-intel with the generic codec, MSI period interrupts',
    qemuDevices: ['ich9-intel-hda,id=xrhda,msi=on', 'hda-output,bus=xrhda.0,audiodev={audiodev}'],
    kernelOptions: ['CONFIG_SND_HDA_INTEL', 'CONFIG_SND_HDA_GENERIC', 'CONFIG_PCI_MSI'],
    modules: ['snd-hda-intel', 'snd-hda-codec-generic'],
    alsaId: 'Intel',
  },
  usb: {
    name: 'usb',
    summary:
      'QEMU qemu-xhci + usb-audio: snd-usb-audio, periods completed by URBs in the xHCI interrupt',
    qemuDevices: ['qemu-xhci,id=xrxhci', 'usb-audio,bus=xrxhci.0,audiodev={audiodev}'],
    kernelOptions: ['CONFIG_SND_USB_AUDIO', 'CONFIG_USB_XHCI_HCD', 'CONFIG_USB_XHCI_PCI'],
    modules: ['xhci-pci', 'snd-usb-audio'],
    alsaId: 'Audio',
  },
  ac97: {
    name: 'ac97',
    summary: 'QEMU AC97 (Intel 82801AA): snd-intel8x0, the chip of the 2004 latency reports',
    qemuDevices: ['AC97,audiodev={audiodev}'],
    kernelOptions: ['CONFIG_SND_INTEL8X0'],
    modules: ['snd-intel8x0'],
    alsaId: 'I82801AAICH',
  },
};

// Looks up one card's facts by name.
export function soundCard(name: SoundCardName): SoundCard {
  return CARDS[name];
}

// Turns the repeatable `--card` values into the cards to attach: checked, duplicates dropped,
// the order kept (the first card is the one a session plays on); none given means snd-dummy.
export function parseSoundCards(values: readonly string[]): SoundCardName[] {
  const out: SoundCardName[] = [];
  for (const raw of values) {
    for (const v of raw.split(',')) {
      const name = v.trim().toLowerCase();
      if (!(SOUND_CARD_NAMES as readonly string[]).includes(name)) {
        throw new UsageError(
          `--card must be one of ${SOUND_CARD_NAMES.join(', ')}, got "${v.trim()}"`,
          { hint: 'repeat --card to attach several cards, e.g. --card hda --card usb' },
        );
      }
      if (!out.includes(name as SoundCardName)) out.push(name as SoundCardName);
    }
  }
  return out.length === 0 ? [DEFAULT_SOUND_CARD] : out;
}

/** The audiodev id QEMU gets for one card (each emulated card has its own). */
export function audiodevId(name: SoundCardName): string {
  return `xrsnd-${name}`;
}

// The QEMU arguments that attach the cards: per emulated card an `-audiodev none` backend (QEMU
// consumes the samples in real time and discards them) and its `-device` lines. snd-dummy needs
// none: it is built into the kernel.
export function soundCardQemuArgs(cards: readonly SoundCardName[]): string[] {
  const args: string[] = [];
  for (const name of cards) {
    const card = CARDS[name];
    if (card.qemuDevices.length === 0) continue;
    const id = audiodevId(name);
    args.push('-audiodev', `none,id=${id}`);
    for (const d of card.qemuDevices) args.push('-device', d.replace('{audiodev}', id));
  }
  return args;
}

// The ALSA device a session plays on by default: the first card's first PCM, by card id (card
// numbers depend on probe order; ids do not).
export function defaultAlsaDevice(cards: readonly SoundCardName[]): string {
  const first = cards[0] ?? DEFAULT_SOUND_CARD;
  return `hw:CARD=${CARDS[first].alsaId},DEV=0`;
}

// How long the guest waits for every card to register (s). snd-hda-intel probes its codec in
// a work item after modprobe returns: in one CI run under load the payload's first
// `cat /proc/asound/cards` came before the HDA card, which played a moment later.
export const CARD_REGISTER_WAIT_S = 30;

/**
 * Shell lines (for the guest's modules.sh, run before the payload) that wait until every
 * card's id is in /proc/asound/cards, so no command starts before its card exists; a card
 * that never appears is said on stderr and the payload still runs (its own checks then fail).
 */
export function cardRegisterWaitLines(cards: readonly SoundCardName[]): string[] {
  const ids = [...new Set(cards.map((c) => CARDS[c].alsaId))];
  return ids.map(
    (id) =>
      `i=0; while ! grep -q '\\[${id} *\\]' /proc/asound/cards 2>/dev/null; do i=$((i+1)); [ $i -gt ${CARD_REGISTER_WAIT_S * 10} ] && { echo "xrunhunt-lab: card ${id} did not register within ${CARD_REGISTER_WAIT_S} s" >&2; break; }; sleep 0.1; done`,
  );
}

/** The commands that play on an ALSA device (--device) and so default to the lab card's. */
const PLAYING_COMMANDS = ['session', 'try', 'stress', 'play'];

/**
 * `--device <the first card's hw: device>` for a playing command given without --device, so a
 * session in the lab measures the kernel stream itself: on "default" a 20 ms interrupts-off
 * section vanished into dmix's 2048-frame buffer (158 userspace xruns, 0 kernel events).
 */
export function labDeviceArgs(args: readonly string[], cards: readonly string[]): string[] {
  if (!PLAYING_COMMANDS.includes(args[0] ?? '')) return [];
  if (args.some((a) => a === '--device' || a.startsWith('--device=') || a === '-D')) return [];
  return ['--device', defaultAlsaDevice(parseSoundCards(cards))];
}

// The modules a modular guest kernel must load for the cards, dependencies first, no duplicates
// (for a kernel booted with an initramfs; the debug profile has every driver built in).
export function guestModules(cards: readonly SoundCardName[]): string[] {
  const out: string[] = [];
  for (const name of cards) {
    for (const m of CARDS[name].modules) if (!out.includes(m)) out.push(m);
  }
  return out;
}

/** A card whose driver (or something it needs) is not in the kernel's config. */
export interface MissingCardDriver {
  card: SoundCardName;
  option: string;
  /** The value found: `null` when unset or absent. */
  found: string | null;
}

// Names every option the cards need that a kernel config lacks (=y and =m both count: a module
// is loaded by the initramfs of a modular kernel).
export function findMissingCardDrivers(
  cards: readonly SoundCardName[],
  configText: string,
): MissingCardDriver[] {
  const config = configMap(parseKernelConfig(configText));
  const out: MissingCardDriver[] = [];
  for (const name of cards) {
    for (const option of CARDS[name].kernelOptions) {
      const found = config.get(option) ?? null;
      if (found !== 'y' && found !== 'm') out.push({ card: name, option, found });
    }
  }
  return out;
}

// The error for a kernel that cannot drive a requested card: which card, which option, where
// the config was read, and what to do.
export function missingCardDriverError(
  missing: readonly MissingCardDriver[],
  kernelImage: string,
  configSource: string,
): XrunhuntError {
  const parts = missing.map(
    (m) => `--card ${m.card} needs ${m.option} (${m.found === null ? 'not set' : `=${m.found}`})`,
  );
  return new XrunhuntError(
    'unsupported',
    `the lab kernel ${kernelImage} lacks a sound card driver: ${parts.join('; ')}`,
    {
      hint: `config read from ${configSource}; rebuild with lab/kernel/debug.config (xrunhunt lab build), or choose another --card`,
    },
  );
}
