// Knob: the CPUs the sound card's interrupt is delivered to (/proc/irq/N/smp_affinity_list).
// Moving it off the CPU where a driver keeps interrupts disabled is what rtirq-style tuning
// does. `irq.affinity` finds N in /proc/interrupts by the sound driver's action name
// (snd_hda_intel:card0, snd_usb_audio, ...); `irq.N.affinity` names the line itself.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { checkedCpuList } from './cpu-list.js';
import { trimmed, type KnobDefinition, type KnobEnv } from './contract.js';

/** The interrupt lines of sound drivers in /proc/interrupts text: number and action names. */
export function soundInterrupts(text: string): { irq: number; actions: string }[] {
  const out: { irq: number; actions: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+):\s+(.*)$/.exec(line);
    if (!m) continue;
    const names = m[2]!.match(/\bsnd[\w-]*(?::card\d+)?/g);
    if (names) out.push({ irq: Number(m[1]), actions: names.join(', ') });
  }
  return out;
}

/** The one sound interrupt line; refuses none or several, naming the knob that asked. */
export function soundIrq(env: KnobEnv, knob = 'irq.affinity'): number {
  const path = join(env.procRoot, 'interrupts');
  const found = soundInterrupts(env.io.read(path));
  if (found.length === 0)
    throw new UsageError(`invalid knob "${knob}": no sound interrupt in ${path}`, {
      hint: `the card has no interrupt line of its own (snd-dummy, a USB card behind xhci, a VM): name the line with ${knob.replace('irq.', 'irq.N.')}=… (see /proc/interrupts)`,
    });
  if (found.length > 1)
    throw new UsageError(
      `invalid knob "${knob}": several sound interrupts (${found.map((f) => `${f.irq} ${f.actions}`).join('; ')})`,
      { hint: `name one with ${knob.replace('irq.', 'irq.N.')}=…` },
    );
  return found[0]!.irq;
}

/** Moves an interrupt line to other CPUs. */
export const irqAffinityKnob: KnobDefinition = {
  key: 'irq.affinity | irq.N.affinity',
  example: 'irq.affinity=1',
  explain:
    "the CPUs the sound card's interrupt goes to (/proc/irq/N/smp_affinity_list): away from a CPU another driver keeps busy",
  matches: (key) => /^irq\.(\d+\.)?affinity$/.test(key),
  resolve(key, value, env) {
    const n = /^irq\.(\d+)\.affinity$/.exec(key);
    const irq = n ? Number(n[1]) : soundIrq(env);
    const cpus = checkedCpuList(key, value, env);
    const path = join(env.procRoot, 'irq', String(irq), 'smp_affinity_list');
    let current: string;
    try {
      current = trimmed(env.io.read(path));
    } catch {
      throw new UsageError(
        `invalid knob "${quoteUntrusted(key, 60)}": interrupt ${irq} has no ${path}`,
      );
    }
    const list = cpus.join(',');
    return {
      spec: `${key}=${list}`,
      what: `the affinity of interrupt ${irq}`,
      from: current,
      to: list,
      writes: [{ path, value: list, journal: true, normalize: trimmed }],
    };
  },
};
