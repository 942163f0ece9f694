// Whether this host's PipeWire (which the guest runs: its root is the host's `/`) can run in
// IRQ mode. `api.alsa.disable-tsched` is read by the ALSA plugin of newer PipeWire versions;
// Debian 12's 0.3.65 has no such property (its libspa-alsa.so lacks the string) and always
// schedules by timer, except on BATCH devices (USB audio), where it uses period wake-ups by
// itself. Setting an unknown property would silently give timer mode, so it is refused.
import { readFileSync } from 'node:fs';
import { XrunhuntError } from '../errors.js';

/** The ALSA plugin of PipeWire on Debian/Ubuntu (multiarch) and other layouts. */
export const SPA_ALSA_PLUGIN_PATHS: readonly string[] = [
  '/usr/lib/x86_64-linux-gnu/spa-0.2/alsa/libspa-alsa.so',
  '/usr/lib/aarch64-linux-gnu/spa-0.2/alsa/libspa-alsa.so',
  '/usr/lib64/spa-0.2/alsa/libspa-alsa.so',
  '/usr/lib/spa-0.2/alsa/libspa-alsa.so',
];

export const DISABLE_TSCHED_PROPERTY = 'api.alsa.disable-tsched';

// Whether a plugin binary mentions the property (it parses it by that name).
export function pluginKnowsDisableTsched(plugin: Uint8Array): boolean {
  return Buffer.from(plugin.buffer, plugin.byteOffset, plugin.byteLength).includes(
    DISABLE_TSCHED_PROPERTY,
  );
}

// Throws the plain "cannot run IRQ mode here" error, naming the plugin that was read.
export function assertIrqModeSupported(paths: readonly string[] = SPA_ALSA_PLUGIN_PATHS): void {
  for (const p of paths) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(p);
    } catch {
      continue;
    }
    if (pluginKnowsDisableTsched(bytes)) return;
    throw new XrunhuntError(
      'unsupported',
      `--pipewire irq needs a PipeWire whose ALSA plugin reads ${DISABLE_TSCHED_PROPERTY}; ${p} does not (Debian 12's PipeWire 0.3.65 always schedules by timer, except on BATCH devices such as USB audio)`,
      {
        hint: "use --pipewire timer, or install a newer PipeWire on this host (the guest runs the host's programs)",
      },
    );
  }
  throw new XrunhuntError(
    'not-found',
    `--pipewire: PipeWire's ALSA plugin is not installed (looked for ${paths.join(', ')})`,
    { hint: 'apt-get install --no-install-recommends pipewire pipewire-bin wireplumber' },
  );
}
