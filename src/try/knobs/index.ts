// Every knob `try` can change, and KNOB=VALUE → the change it makes (validated against the
// machine before anything starts).
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { UsageError } from '../../errors.js';
import { BOOT_ONLY_KNOBS, bootOnlyError } from './boot-only.js';
import type { KnobChange, KnobDefinition, KnobEnv } from './contract.js';
import { cpuDmaLatencyKnob } from './cpu-dma-latency.js';
import { governorKnob } from './cpufreq-governor.js';
import { dirtyBytesKnob } from './dirty-bytes.js';
import { ioSchedulerKnob } from './io-scheduler.js';
import { irqAffinityKnob } from './irq-affinity.js';
import { irqPriorityKnob } from './irq-priority.js';
import { loadCpuKnob } from './load-cpu.js';
import { playerCpuKnob, playerPriorityKnob } from './player.js';
import { swappinessKnob } from './swappiness.js';
import { thpKnob } from './transparent-hugepages.js';

export type {
  KnobChange,
  KnobDefinition,
  KnobEnv,
  SettingWrite,
  HeldRequest,
  ThreadSchedWrite,
} from './contract.js';

/** The knobs, in the order the help lists them. */
export const KNOBS: readonly KnobDefinition[] = [
  ioSchedulerKnob,
  dirtyBytesKnob,
  swappinessKnob,
  irqAffinityKnob,
  irqPriorityKnob,
  cpuDmaLatencyKnob,
  governorKnob,
  thpKnob,
  playerPriorityKnob,
  playerCpuKnob,
  loadCpuKnob,
];

/** Parses one KNOB=VALUE and resolves it against the machine. */
export function resolveKnob(spec: string, env: KnobEnv): KnobChange {
  const eq = spec.indexOf('=');
  const key = eq < 0 ? spec : spec.slice(0, eq);
  const value = eq < 0 ? '' : spec.slice(eq + 1);
  if (BOOT_ONLY_KNOBS.includes(key)) throw bootOnlyError(key, value);
  if (eq <= 0 || value === '')
    throw new UsageError(
      `invalid knob "${quoteUntrusted(spec, 60)}": expected KNOB=VALUE, e.g. ${KNOBS[0]!.example}`,
    );
  const knob = KNOBS.find((k) => k.matches(key));
  if (!knob)
    throw new UsageError(`unknown knob "${quoteUntrusted(key, 60)}"`, {
      hint: `knobs: ${KNOBS.map((k) => k.key).join(', ')}; reboot-only: ${BOOT_ONLY_KNOBS.join(', ')} ("xrunhunt try --help" explains each)`,
    });
  return knob.resolve(key, value, env);
}

/** Resolves several knobs; the same setting twice is refused. */
export function resolveKnobs(specs: readonly string[], env: KnobEnv): KnobChange[] {
  if (specs.length === 0)
    throw new UsageError('try needs at least one KNOB=VALUE', {
      hint: `e.g. xrunhunt try ${KNOBS[0]!.example}; "xrunhunt try --help" lists the knobs`,
    });
  const changes = specs.map((s) => resolveKnob(s, env));
  const paths = changes.flatMap((c) => [
    ...c.writes.map((w) => w.path),
    ...(c.hold ? [c.hold.path] : []),
    ...(c.threads ?? []).map((t) => t.path),
    ...Object.keys(c.player ?? {}).map((k) => `player.${k}`),
    ...Object.keys(c.load ?? {}).map((k) => `load.${k}`),
  ]);
  const dup = paths.find((p, i) => paths.indexOf(p) !== i);
  if (dup !== undefined)
    throw new UsageError(`two knobs change the same setting (${dup}); give each setting once`);
  return changes;
}
