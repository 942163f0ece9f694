// Knob of the load itself: the CPUs its workers run on. Like the player knobs it changes the
// B rounds' plan, not the machine (nothing to journal): it shows whether the xruns come from
// the load competing for the player's CPU rather than from what the load makes the kernel do.
import { checkedCpuList } from './cpu-list.js';
import type { KnobDefinition } from './contract.js';

/** The CPUs the load generator's workers are pinned to in the B rounds. */
export const loadCpuKnob: KnobDefinition = {
  key: 'load.cpu',
  example: 'load.cpu=1',
  explain:
    "the CPUs the load's workers (every thread, and what they start) are pinned to: off the player's CPU, or onto it",
  matches: (key) => key === 'load.cpu',
  resolve(key, value, env) {
    const cpus = checkedCpuList(key, value, env);
    const list = cpus.join(',');
    return {
      spec: `${key}=${list}`,
      what: "the load's CPUs",
      from: 'any CPU',
      to: `CPU ${list}`,
      writes: [],
      load: { cpus },
    };
  },
};
