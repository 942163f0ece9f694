// Reads the running kernel's build configuration, because "xrun_debug is missing" is only
// useful with the reason: which CONFIG_ options the kernel was built without. Sources, in
// order: /proc/config.gz (CONFIG_IKCONFIG_PROC), /boot/config-<release> (Debian, Fedora, ...).
import * as nodeFs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { release as osRelease } from 'node:os';

/** Option name (without CONFIG_) → value (`y`, `m`, a number, a string); null = "is not set". */
export type KernelConfig = Map<string, string | null>;

export interface KernelConfigRead {
  config: KernelConfig | undefined;
  /** The file it came from. */
  source: string | undefined;
  /** Files tried, with why each failed, for messages. */
  tried: { path: string; error: string }[];
}

/** Parses a kernel .config: `CONFIG_X=y` and `# CONFIG_X is not set`. */
export function parseKernelConfig(text: string): KernelConfig {
  const config: KernelConfig = new Map();
  for (const line of text.split('\n')) {
    let m = /^CONFIG_([A-Za-z0-9_]+)=(.*)$/.exec(line);
    if (m) {
      config.set(m[1]!, m[2]!.replace(/^"(.*)"$/, '$1'));
      continue;
    }
    m = /^# CONFIG_([A-Za-z0-9_]+) is not set/.exec(line);
    if (m) config.set(m[1]!, null);
  }
  return config;
}

/** Whether a boolean/tristate option is enabled (built in or a module). */
export function configEnabled(config: KernelConfig, name: string): boolean {
  const v = config.get(name);
  return v === 'y' || v === 'm';
}

/** The options xrun_debug needs, in dependency order (Kconfig: sound/core/Kconfig). */
export const XRUN_DEBUG_OPTIONS = [
  'SND_DEBUG',
  'SND_VERBOSE_PROCFS',
  'SND_PCM_XRUN_DEBUG',
] as const;

/** Names the options among XRUN_DEBUG_OPTIONS the config lacks. */
export function missingXrunDebugOptions(config: KernelConfig): string[] {
  return XRUN_DEBUG_OPTIONS.filter((o) => !configEnabled(config, o)).map((o) => `CONFIG_${o}`);
}

/** Reads the kernel release (`uname -r`) from <procRoot>/sys/kernel/osrelease, else os.release(). */
export function readKernelRelease(procRoot: string): string {
  try {
    const text = nodeFs.readFileSync(join(procRoot, 'sys/kernel/osrelease'), 'utf8').trim();
    if (text !== '') return text;
  } catch {
    // fall through: a copied tree may not have it
  }
  return osRelease();
}

/** Finds and parses the running kernel's config; never throws. */
export function readKernelConfig(roots: {
  procRoot: string;
  bootRoot: string;
  release: string;
}): KernelConfigRead {
  const tried: { path: string; error: string }[] = [];
  const gz = join(roots.procRoot, 'config.gz');
  try {
    const text = gunzipSync(nodeFs.readFileSync(gz)).toString('utf8');
    return { config: parseKernelConfig(text), source: gz, tried };
  } catch (err) {
    tried.push({ path: gz, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
  }
  const boot = join(roots.bootRoot, `config-${roots.release}`);
  try {
    return { config: parseKernelConfig(nodeFs.readFileSync(boot, 'utf8')), source: boot, tried };
  } catch (err) {
    tried.push({
      path: boot,
      error: (err as NodeJS.ErrnoException).code ?? (err as Error).message,
    });
  }
  return { config: undefined, source: undefined, tried };
}
