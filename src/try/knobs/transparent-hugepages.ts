// Knob: transparent hugepages (/sys/kernel/mm/transparent_hugepage/enabled). khugepaged's
// compaction can stall a CPU for milliseconds; `never` removes it.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { bracketedChoice, choices, type KnobDefinition } from './contract.js';

/** Changes the transparent hugepage mode. */
export const thpKnob: KnobDefinition = {
  key: 'thp',
  example: 'thp=never',
  explain:
    'transparent hugepages (/sys/kernel/mm/transparent_hugepage/enabled): compaction for them can stall a CPU',
  matches: (key) => key === 'thp',
  resolve(key, value, env) {
    const path = join(env.sysRoot, 'kernel', 'mm', 'transparent_hugepage', 'enabled');
    let text: string;
    try {
      text = env.io.read(path);
    } catch {
      throw new UsageError(`invalid knob "thp": this kernel has no ${path}`, {
        hint: 'it was built without CONFIG_TRANSPARENT_HUGEPAGE; there is nothing to try',
      });
    }
    const offered = choices(text);
    if (!offered.includes(value))
      throw new UsageError(
        `invalid value "${quoteUntrusted(value, 60)}" for thp: expected ${offered.join(', ')}`,
      );
    return {
      spec: `${key}=${value}`,
      what: 'transparent hugepages',
      from: bracketedChoice(text),
      to: value,
      writes: [{ path, journal: true, value, normalize: bracketedChoice }],
    };
  },
};
