// CPU lists as the kernel writes them (`0-3,6`): parsed into CPU numbers and checked against
// the CPUs that are online, so a knob never asks for a CPU that is not there.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import type { KnobEnv } from './contract.js';

/** The kernel's largest CPU count (NR_CPUS ≤ 8192): a range past it is not a CPU list. */
export const MAX_CPUS = 8192;

/** `0-3,6` → [0, 1, 2, 3, 6]; null when the text is not a CPU list. */
export function parseCpuList(text: string): number[] | null {
  const t = text.trim();
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(t)) return null;
  const cpus = new Set<number>();
  for (const part of t.split(',')) {
    const [lo, hi] = part.split('-').map(Number) as [number, number | undefined];
    if ((hi !== undefined && hi < lo) || (hi ?? lo) >= MAX_CPUS) return null;
    for (let c = lo; c <= (hi ?? lo); c++) cpus.add(c);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** The online CPUs (/sys/devices/system/cpu/online); null when the file is missing. */
export function onlineCpus(env: KnobEnv): number[] | null {
  try {
    return parseCpuList(env.io.read(join(env.sysRoot, 'devices', 'system', 'cpu', 'online')));
  } catch {
    return null;
  }
}

/** Validates a CPU list value for `key` against the online CPUs. */
export function checkedCpuList(key: string, value: string, env: KnobEnv): number[] {
  // Exactly as typed: the file read above may end in a newline, a value given by the user may not.
  const cpus = value === value.trim() ? parseCpuList(value) : null;
  if (cpus === null)
    throw new UsageError(
      `invalid value "${quoteUntrusted(value, 60)}" for ${key}: expected a CPU list such as 0, 2-3 or 0,2 (no spaces, CPUs below ${MAX_CPUS})`,
    );
  const online = onlineCpus(env);
  const missing = online ? cpus.filter((c) => !online.includes(c)) : [];
  if (missing.length > 0)
    throw new UsageError(
      `invalid value "${quoteUntrusted(value, 60)}" for ${key}: CPU ${missing.join(', ')} is not online (online: ${online!.join(',')})`,
    );
  return cpus;
}
