// Kernel config fragments and `.config` files as data: what a profile asks for, and which of
// those requests a built (or a user's) kernel did not honour. Pure: text in, values out.

/** One requested option: `CONFIG_X=y|m|<value>`, or `null` for `# CONFIG_X is not set`. */
export interface ConfigRequest {
  name: string;
  value: string | null;
}

/** A requested option whose final value differs from the request. */
export interface ConfigMismatch {
  name: string;
  wanted: string | null;
  /** The value in the final config; `null` when unset or absent. */
  found: string | null;
}

const SET_LINE = /^(CONFIG_[A-Za-z0-9_]+)=(.*)$/;
const UNSET_LINE = /^# (CONFIG_[A-Za-z0-9_]+) is not set$/;

// Reads a fragment or a full `.config`: every set and explicitly unset option, in order.
export function parseKernelConfig(text: string): ConfigRequest[] {
  const out: ConfigRequest[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const set = SET_LINE.exec(line);
    if (set) {
      out.push({ name: set[1]!, value: set[2]! });
      continue;
    }
    const unset = UNSET_LINE.exec(line);
    if (unset) out.push({ name: unset[1]!, value: null });
  }
  return out;
}

// Turns a parsed config into a lookup; later lines win, as in Kconfig.
export function configMap(entries: ConfigRequest[]): Map<string, string | null> {
  const map = new Map<string, string | null>();
  for (const e of entries) map.set(e.name, e.value);
  return map;
}

// Lists the requests a final config did not honour: merge_config.sh and olddefconfig drop
// options silently when a dependency is missing, so every build (and every user kernel) is checked.
export function findConfigMismatches(
  requested: ConfigRequest[],
  finalConfig: Map<string, string | null>,
): ConfigMismatch[] {
  const out: ConfigMismatch[] = [];
  for (const req of requested) {
    const found = finalConfig.get(req.name) ?? null;
    const ok = req.value === null ? found === null || found === 'n' : found === req.value;
    if (!ok) out.push({ name: req.name, wanted: req.value, found });
  }
  return out;
}

// Says what was wanted and what was found in one short phrase per option, for error messages.
export function describeMismatch(m: ConfigMismatch): string {
  const wanted = m.wanted === null ? 'not set' : `=${m.wanted}`;
  const found = m.found === null ? 'not set' : `=${m.found}`;
  return `${m.name} (wanted ${wanted}, found ${found})`;
}

// Options the lab cannot work without when the profile asks for them (the rest of a fragment
// only improves results): a user kernel missing these cannot boot the lab or show XRUN stacks.
export const ESSENTIAL_LAB_OPTIONS: readonly string[] = [
  'CONFIG_NET_9P_VIRTIO',
  'CONFIG_9P_FS',
  'CONFIG_VIRTIO_PCI',
  'CONFIG_SND_DUMMY',
  'CONFIG_SND_PCM_XRUN_DEBUG',
];
