// Knob: the cpufreq governor of every CPU. A CPU clocked down when the audio thread wakes
// takes longer to fill the period; `performance` keeps the clock up.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { choices, trimmed, type KnobDefinition } from './contract.js';

/** The cpufreq folders of the CPUs that have one, in CPU order. */
function cpufreqDirs(sysRoot: string): string[] {
  const base = join(sysRoot, 'devices', 'system', 'cpu');
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  return names
    .filter((n) => /^cpu\d+$/.test(n))
    .sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)))
    .map((n) => join(base, n, 'cpufreq'));
}

/** Changes the scaling governor of all CPUs. */
export const governorKnob: KnobDefinition = {
  key: 'cpufreq.governor',
  example: 'cpufreq.governor=performance',
  explain:
    "every CPU's cpufreq governor (/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor): a clocked-down CPU fills a period more slowly",
  matches: (key) => key === 'cpufreq.governor',
  resolve(key, value, env) {
    const dirs = cpufreqDirs(env.sysRoot).filter((d) => {
      try {
        env.io.read(join(d, 'scaling_governor'));
        return true;
      } catch {
        return false;
      }
    });
    if (dirs.length === 0)
      throw new UsageError(
        `invalid knob "${quoteUntrusted(key, 60)}": no CPU under ${join(env.sysRoot, 'devices/system/cpu')} has cpufreq`,
        {
          hint: 'the CPU frequency is fixed here (a VM, or no cpufreq driver); there is nothing to try',
        },
      );
    const offered = choices(env.io.read(join(dirs[0]!, 'scaling_available_governors')));
    if (!offered.includes(value))
      throw new UsageError(
        `invalid value "${quoteUntrusted(value, 60)}" for ${key}: this machine offers ${offered.join(', ')}`,
      );
    const current = [
      ...new Set(dirs.map((d) => trimmed(env.io.read(join(d, 'scaling_governor'))))),
    ];
    return {
      spec: `${key}=${value}`,
      what: 'the cpufreq governor',
      from: current.join('/'),
      to: value,
      writes: dirs.map((d) => ({
        path: join(d, 'scaling_governor'),
        value,
        journal: true,
        normalize: trimmed,
      })),
    };
  },
};
