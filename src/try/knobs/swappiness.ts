// Knob: vm.swappiness. It only matters under memory pressure, which makes it the control
// knob of the lab test: without pressure `try` must show no significant change.
import { join } from 'node:path';
import { parseInteger } from '../../units.js';
import { trimmed, type KnobDefinition } from './contract.js';

/** Changes how eagerly the kernel swaps anonymous memory. */
export const swappinessKnob: KnobDefinition = {
  key: 'vm.swappiness',
  example: 'vm.swappiness=10',
  explain:
    'how eagerly anonymous memory is swapped out (/proc/sys/vm/swappiness); matters only under memory pressure',
  matches: (key) => key === 'vm.swappiness',
  resolve(key, value, env) {
    const n = parseInteger(value, key, 0, 200);
    const path = join(env.procRoot, 'sys', 'vm', 'swappiness');
    return {
      spec: `${key}=${n}`,
      what: key,
      from: trimmed(env.io.read(path)),
      to: String(n),
      writes: [{ path, value: String(n), journal: true, normalize: trimmed }],
    };
  },
};
