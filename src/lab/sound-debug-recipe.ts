// The xrun_debug lab kernel without a kernel compile (`--kernel debian-debug`): Debian's own
// image, with its sound modules rebuilt out of tree from the same version's linux-source against
// a copy of its headers that has CONFIG_SND_DEBUG and CONFIG_SND_PCM_XRUN_DEBUG on (every sound
// module together: the options change ALSA's structures), plus test_lockup.ko. Measured
// (docs/lab-debian-debug.md): 140-200 s of compile for the 21 modules the lab's cards load,
// against 1023 s for the full debug kernel; xrun_debug on every card, real XRUN dumps, and the
// test_lockup ground truth ranked first. Pure: texts and names in, texts, argv and keys out.
import { createHash } from 'node:crypto';
import { guestModules, type SoundCardName } from './sound-cards.js';

/** Bumped when the recipe below changes, so a cached build of an older recipe is rebuilt. */
export const SOUND_DEBUG_RECIPE_VERSION = 1;

/**
 * The options turned on in the headers' copy. VERBOSE_PROCFS is already on in Debian's config;
 * everything that depends on SND_DEBUG is off by default, so this equals what olddefconfig gives.
 */
export const SOUND_DEBUG_OPTIONS = [
  'SND_DEBUG',
  'SND_PCM_XRUN_DEBUG',
  'SND_VERBOSE_PROCFS',
] as const;

/** What is extracted from linux-source: the sound tree and test_lockup's one file. */
export const SOUND_DEBUG_SOURCE_MEMBERS = ['sound', 'lib/test_lockup.c'] as const;

/** The top Kbuild of the sound tree: the subset of sound/Makefile the lab's cards need. */
export const SOUND_KBUILD = `# xrunhunt sound-only build: the subset of sound/Makefile the lab's cards need.
obj-$(CONFIG_SOUND) += soundcore.o
obj-$(CONFIG_SND) += core/ drivers/ hda/ pci/ usb/
obj-$(CONFIG_AC97_BUS) += ac97_bus.o
soundcore-objs := sound_core.o
`;

/** sound/pci's Kbuild: of sound/pci only the AC97 (intel8x0) and HDA drivers. */
export const SOUND_PCI_KBUILD = `# xrunhunt sound-only build: of sound/pci only the AC97 (intel8x0) and HDA drivers.
snd-intel8x0-objs := intel8x0.o
obj-$(CONFIG_SND_INTEL8X0) += snd-intel8x0.o
obj-$(CONFIG_SND) += ac97/ hda/
`;

/**
 * Leaf modules switched off on make's command line (it overrides include/config/auto.conf for
 * object selection only): what is left is the 21 modules the lab's four cards load, snd-aloop
 * and their dependencies. Each option here is a driver no lab card uses.
 */
export const SOUND_DEBUG_SKIPPED_OPTIONS = [
  'SND_SEQUENCER',
  'SND_PCM_OSS',
  'SND_MIXER_OSS',
  'SND_COMPRESS_OFFLOAD',
  'SND_CTL_LED',
  'SND_MTPAV',
  'SND_MTS64',
  'SND_PORTMAN2X4',
  'SND_SERIAL_U16550',
  'SND_VIRMIDI',
  'SND_MPU401',
  'SND_MPU401_UART',
  'SND_PCSP',
  'SND_OPL3_LIB',
  'SND_OPL3_LIB_SEQ',
  'SND_VX_LIB',
  'SND_HDA_EXT_CORE',
  'SND_HDA_CODEC_REALTEK',
  'SND_HDA_CODEC_ANALOG',
  'SND_HDA_CODEC_SIGMATEL',
  'SND_HDA_CODEC_VIA',
  'SND_HDA_CODEC_HDMI',
  'SND_HDA_CODEC_CIRRUS',
  'SND_HDA_CODEC_CS8409',
  'SND_HDA_CODEC_CONEXANT',
  'SND_HDA_CODEC_CA0110',
  'SND_HDA_CODEC_CA0132',
  'SND_HDA_CODEC_CMEDIA',
  'SND_HDA_CODEC_SI3054',
  'SND_HDA_SCODEC_CS35L41',
  'SND_HDA_SCODEC_CS35L41_I2C',
  'SND_HDA_SCODEC_CS35L41_SPI',
  'SND_HDA_CS_DSP_CONTROLS',
  'SND_USB_UA101',
  'SND_USB_USX2Y',
  'SND_USB_CAIAQ',
  'SND_USB_US122L',
  'SND_USB_6FIRE',
  'SND_USB_HIFACE',
  'SND_BCD2000',
  'SND_USB_LINE6',
  'SND_USB_POD',
  'SND_USB_PODHD',
  'SND_USB_TONEPORT',
  'SND_USB_VARIAX',
] as const;

// make's command-line overrides that leave the skipped drivers out of the build.
export function skippedOptionOverrides(): string[] {
  return SOUND_DEBUG_SKIPPED_OPTIONS.map((o) => `CONFIG_${o}=`);
}

// Turns options on in a .config or include/config/auto.conf text (`CONFIG_X=y`), whatever
// state they were in ("is not set", =m, absent): the build sees them as built-in options.
export function enableInKconfig(text: string, options: readonly string[]): string {
  const drop = new Set(options.flatMap((o) => [`# CONFIG_${o} is not set`]));
  const kept = text
    .split('\n')
    .filter((l) => !drop.has(l) && !options.some((o) => l.startsWith(`CONFIG_${o}=`)));
  while (kept.length > 0 && kept.at(-1) === '') kept.pop();
  return [...kept, ...options.map((o) => `CONFIG_${o}=y`), ''].join('\n');
}

// The same for include/generated/autoconf.h (`#define CONFIG_X 1`), which C code tests.
export function enableInAutoconf(text: string, options: readonly string[]): string {
  const kept = text
    .split('\n')
    .filter((l) => !options.some((o) => new RegExp(`^#define CONFIG_${o}(_MODULE)? `).test(l)));
  while (kept.length > 0 && kept.at(-1) === '') kept.pop();
  return [...kept, ...options.map((o) => `#define CONFIG_${o} 1`), ''].join('\n');
}

// The modules the guest loads, in the order that makes the card numbers of the self-built debug
// kernel (snd-dummy and snd-aloop are built in there, so always cards 0 and 1): snd-dummy in
// hrtimer mode (64-frame periods need it), snd-aloop, then the drivers of the other cards.
export function soundDebugModulesScript(cards: readonly SoundCardName[]): string[] {
  const probe = (line: string) => `${line} || { echo "xrunhunt-lab: ${line} failed" >&2; exit 1; }`;
  const rest = guestModules(cards).filter((m) => m !== 'snd-dummy');
  return [
    '#!/bin/sh',
    probe('modprobe snd-dummy hrtimer=1'),
    probe('modprobe snd-aloop'),
    ...rest.map((m) => probe(`modprobe ${m}`)),
    '',
  ];
}

export interface SoundDebugKeyInput {
  /** Debian's image package and version the modules are loaded into. */
  imagePackage: string;
  imageVersion: string;
  /** linux-source's package version and tarball identity (name:size:mtime). */
  sourceVersion: string;
  sourceId: string;
  /** linux-headers' package version. */
  headersVersion: string;
}

// The cache folder of one build: everything that changes the modules is in the key.
export function soundDebugCacheKey(input: SoundDebugKeyInput): string {
  const h = createHash('sha256');
  h.update(`xrunhunt-sound-debug-recipe-${SOUND_DEBUG_RECIPE_VERSION}\n`);
  for (const [k, v] of Object.entries(input)) h.update(`${k}=${v}\n`);
  h.update(SOUND_DEBUG_OPTIONS.join(',') + '\n');
  h.update(SOUND_DEBUG_SKIPPED_OPTIONS.join(',') + '\n');
  h.update(SOUND_KBUILD + SOUND_PCI_KBUILD);
  return `sound-debug-${h.digest('hex').slice(0, 16)}`;
}

// The source must be the image's own version: sound modules from another version of the tree
// would load (the headers' symbol versions match) and behave like neither kernel.
export function sourceVersionMismatch(
  imageVersion: string,
  sourceVersion: string | null,
  headersVersion: string | null,
): string | null {
  const wrong = [
    sourceVersion !== imageVersion ? `linux-source-6.1 ${sourceVersion ?? 'not installed'}` : null,
    headersVersion !== imageVersion ? `the headers ${headersVersion ?? 'not installed'}` : null,
  ].filter((x): x is string => x !== null);
  return wrong.length === 0 ? null : `the image is ${imageVersion}, but ${wrong.join(' and ')}`;
}

/** The `--kernel` name of this build. */
export const SOUND_DEBUG_KERNEL = 'debian-debug';
