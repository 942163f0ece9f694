// Says why a machine has no xrun_debug files, because "not found" alone sends users in
// circles: no sound support at all, no card, no PCM, or a kernel built without the debug
// options (named from its config), or a config we could not find.
import type { KernelConfig } from './kernel-config.js';
import { missingXrunDebugOptions } from './kernel-config.js';

export type XrunDebugAbsenceReason =
  'no-sound-support' | 'no-cards' | 'no-pcms' | 'kernel-options' | 'config-unknown';

export interface XrunDebugAbsence {
  reason: XrunDebugAbsenceReason;
  message: string;
  hint: string;
  /** CONFIG_ options the kernel lacks (empty when unknown). */
  missingOptions: string[];
}

export interface XrunDebugAbsenceFacts {
  procRoot: string;
  asoundPresent: boolean;
  cardCount: number;
  streamCount: number;
  kernelRelease: string;
  config: KernelConfig | undefined;
  configSource: string | undefined;
  configTried: { path: string; error: string }[];
}

const KERNEL_HINT =
  'use a kernel built with CONFIG_SND_DEBUG=y, CONFIG_SND_VERBOSE_PROCFS=y and CONFIG_SND_PCM_XRUN_DEBUG=y ' +
  '(or run "xrunhunt lab", which boots such a kernel in a VM); without it xrunhunt still measures ' +
  'userspace xruns and can use a kprobe on __snd_pcm_xrun (see "xrunhunt doctor")';

/** Explains why no xrun_debug file exists, from facts gathered elsewhere. */
export function explainXrunDebugAbsence(f: XrunDebugAbsenceFacts): XrunDebugAbsence {
  const asound = `${f.procRoot.replace(/\/$/, '')}/asound`;
  if (!f.asoundPresent) {
    const snd = f.config?.get('SND');
    if (f.config && snd !== 'y' && snd !== 'm') {
      return {
        reason: 'no-sound-support',
        message: `no ${asound}: kernel ${f.kernelRelease} was built without sound support (CONFIG_SND is not set, per ${f.configSource})`,
        hint: 'nothing to diagnose on this kernel; "xrunhunt lab" boots a kernel with sound debugging in a VM',
        missingOptions: ['CONFIG_SND', ...missingXrunDebugOptions(f.config)],
      };
    }
    return {
      reason: 'no-sound-support',
      message: `no ${asound}: kernel ${f.kernelRelease} has no sound support loaded (no ALSA, or no sound card driver)`,
      hint: 'load the driver for your sound card (or snd-dummy to test: "modprobe snd-dummy"), or run "xrunhunt lab"',
      missingOptions: [],
    };
  }
  if (f.cardCount === 0) {
    return {
      reason: 'no-cards',
      message: `${asound} exists but lists no sound card`,
      hint: 'load the driver for your sound card (or "modprobe snd-dummy" to test)',
      missingOptions: [],
    };
  }
  if (f.streamCount === 0) {
    return {
      reason: 'no-pcms',
      message: `${f.cardCount} sound card${f.cardCount === 1 ? '' : 's'} but no PCM stream in ${asound}`,
      hint: 'the card has no playback/capture device (MIDI-only?) or CONFIG_SND_VERBOSE_PROCFS is off',
      missingOptions: f.config ? missingXrunDebugOptions(f.config) : [],
    };
  }
  if (f.config) {
    const missing = missingXrunDebugOptions(f.config);
    return {
      reason: 'kernel-options',
      message:
        missing.length > 0
          ? `kernel ${f.kernelRelease} was built without ${missing.join(', ')} (from ${f.configSource}), so it has no xrun_debug files`
          : `kernel ${f.kernelRelease} has the xrun_debug options (per ${f.configSource}) but no xrun_debug file appeared`,
      hint:
        missing.length > 0 ? KERNEL_HINT : 'check that the config file matches the running kernel',
      missingOptions: missing,
    };
  }
  return {
    reason: 'config-unknown',
    message:
      `no xrun_debug files; the kernel config could not be read (tried ${f.configTried.map((t) => `${t.path}: ${t.error}`).join('; ')}), ` +
      'so the missing options cannot be named; likely CONFIG_SND_DEBUG / CONFIG_SND_PCM_XRUN_DEBUG are off',
    hint: KERNEL_HINT,
    missingOptions: [],
  };
}
