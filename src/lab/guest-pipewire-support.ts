// Whether this host's PipeWire (which the guest runs: its root is the host's `/`) can run in
// IRQ mode, i.e. wake its data thread on the period interrupt. Only a plugin that reads
// `api.alsa.disable-tsched` can. Debian 12's 0.3.65 cannot on any card, measured and read from
// its binary and sources:
// - its ALSA plugin has no such property and never polls a PCM (it imports no
//   `snd_pcm_poll_descriptors`): the node always wakes on its own timerfd;
// - on a BATCH device (snd-usb-audio sets SNDRV_PCM_INFO_BATCH; snd-hda-intel, snd-intel8x0 and
//   snd-dummy do not) it halves the period, adds a period of headroom ("batch mode,
//   period_size:128" in its log) and keeps period interrupts on, but still wakes by timer;
// - the string "Disabling tsched mode since BATCH flag is set" in the same .so is PulseAudio's
//   card-probing code (ACP, acp/alsa-util.c), which moreover exempts USB Audio: it never
//   changes how the node is scheduled.
// Setting the property there would silently give timer mode, so IRQ mode is refused.
import { readFileSync } from 'node:fs';
import { XrunhuntError } from '../errors.js';
import type { SoundCardName } from './sound-cards.js';

/** The ALSA plugin of PipeWire on Debian/Ubuntu (multiarch) and other layouts. */
export const SPA_ALSA_PLUGIN_PATHS: readonly string[] = [
  '/usr/lib/x86_64-linux-gnu/spa-0.2/alsa/libspa-alsa.so',
  '/usr/lib/aarch64-linux-gnu/spa-0.2/alsa/libspa-alsa.so',
  '/usr/lib64/spa-0.2/alsa/libspa-alsa.so',
  '/usr/lib/spa-0.2/alsa/libspa-alsa.so',
];

export const DISABLE_TSCHED_PROPERTY = 'api.alsa.disable-tsched';
/** The libasound call a plugin needs to wait on period wake-ups at all. */
export const PCM_POLL_SYMBOL = 'snd_pcm_poll_descriptors';

/**
 * What each lab card's driver declares in its `snd_pcm_hardware.info` (kernel 6.1 sources:
 * sound/drivers/dummy.c `dummy_pcm_hardware`, sound/pci/hda/hda_controller.c `azx_pcm_hw`,
 * sound/usb/pcm.c `snd_usb_hardware`, sound/pci/intel8x0.c `snd_intel8x0_stream`). BATCH: the
 * pointer moves a period (URB) at a time; noPeriodWakeup: period interrupts can be turned off.
 */
export const CARD_PCM_INFO: Readonly<
  Record<SoundCardName, { batch: boolean; noPeriodWakeup: boolean }>
> = {
  dummy: { batch: false, noPeriodWakeup: false },
  hda: { batch: false, noPeriodWakeup: true },
  usb: { batch: true, noPeriodWakeup: false },
  ac97: { batch: false, noPeriodWakeup: false },
};

/** What a plugin binary can do, read from the names it contains. */
export interface PluginFacts {
  /** It parses `api.alsa.disable-tsched` (it names the property). */
  disableTsched: boolean;
  /** It imports `snd_pcm_poll_descriptors` (it can wait on the PCM's period wake-ups). */
  pollsPcm: boolean;
}

// Whether a plugin binary mentions the property (it parses it by that name).
export function pluginKnowsDisableTsched(plugin: Uint8Array): boolean {
  return pluginFacts(plugin).disableTsched;
}

// The two facts the IRQ-mode verdict rests on, from the plugin's bytes.
export function pluginFacts(plugin: Uint8Array): PluginFacts {
  const b = Buffer.from(plugin.buffer, plugin.byteOffset, plugin.byteLength);
  return {
    disableTsched: b.includes(DISABLE_TSCHED_PROPERTY),
    pollsPcm: b.includes(`${PCM_POLL_SYMBOL}\0`) || b.includes(`${PCM_POLL_SYMBOL}@`),
  };
}

// What this PipeWire does on the given cards instead of IRQ mode (for the refusal message).
export function timerOnlyExplanation(facts: PluginFacts, cards: readonly SoundCardName[]): string {
  const why = facts.pollsPcm
    ? `it has no ${DISABLE_TSCHED_PROPERTY}`
    : `it has no ${DISABLE_TSCHED_PROPERTY} and never polls a PCM (no ${PCM_POLL_SYMBOL}), so its ALSA node always wakes on its own timer`;
  const batch = cards.filter((c) => CARD_PCM_INFO[c].batch);
  const onBatch =
    batch.length > 0
      ? `; on --card ${batch.join(',')} (a BATCH device) it keeps the period interrupts on and halves the period, but still wakes by timer`
      : '; a BATCH card (--card usb) does not change that: it keeps the period interrupts on and halves the period, but still wakes by timer';
  return `${why}${onBatch}, so no --card gives IRQ mode with this PipeWire`;
}

// Throws the plain "cannot run IRQ mode here" error, naming the plugin that was read and why
// no card helps; returns the plugin that will read the property.
export function assertIrqModeSupported(
  cards: readonly SoundCardName[],
  paths: readonly string[] = SPA_ALSA_PLUGIN_PATHS,
): string {
  for (const p of paths) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(p);
    } catch {
      continue;
    }
    const facts = pluginFacts(bytes);
    if (facts.disableTsched) return p;
    throw new XrunhuntError(
      'unsupported',
      `--pipewire irq needs a PipeWire whose ALSA plugin reads ${DISABLE_TSCHED_PROPERTY}; ${p} does not (Debian 12's PipeWire 0.3.65): ${timerOnlyExplanation(facts, cards)}`,
      {
        hint: `use --pipewire-build backports (or auto, the default) to run PipeWire 1.4 from Debian's bookworm-backports in the guest without installing it; or --pipewire timer (on --card usb the kernel still runs period interrupts and detects XRUNs in them)`,
      },
    );
  }
  throw new XrunhuntError(
    'not-found',
    `--pipewire: PipeWire's ALSA plugin is not installed (looked for ${paths.join(', ')})`,
    { hint: 'apt-get install --no-install-recommends pipewire pipewire-bin wireplumber' },
  );
}
