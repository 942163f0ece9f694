// Knob: a block device's I/O scheduler (/sys/block/DEV/queue/scheduler). Writeback and
// metadata bursts queue behind each other differently under none, mq-deadline, bfq, kyber.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { bracketedChoice, choices, type KnobDefinition } from './contract.js';

/** Changes the I/O scheduler of one block device. */
export const ioSchedulerKnob: KnobDefinition = {
  key: 'scheduler.DEV',
  example: 'scheduler.sda=mq-deadline',
  explain:
    "the block device's I/O scheduler (/sys/block/DEV/queue/scheduler): how writeback and metadata requests queue",
  matches: (key) => /^scheduler\.[^/.\s][^/\s]*$/.test(key),
  resolve(key, value, env) {
    const dev = key.slice('scheduler.'.length);
    const path = join(env.sysRoot, 'block', dev, 'queue', 'scheduler');
    let text: string;
    try {
      text = env.io.read(path);
    } catch {
      throw new UsageError(
        `invalid knob "${quoteUntrusted(key, 60)}": there is no block device "${quoteUntrusted(dev, 60)}" (${quoteUntrusted(path)})`,
        {
          hint: 'name a device listed in /sys/block, e.g. scheduler.sda or scheduler.nvme0n1',
        },
      );
    }
    const offered = choices(text);
    if (!offered.includes(value))
      throw new UsageError(
        `invalid value "${quoteUntrusted(value, 60)}" for ${key}: this kernel offers ${offered.join(', ')} for ${dev}`,
      );
    return {
      spec: `${key}=${value}`,
      what: `the I/O scheduler of ${dev}`,
      from: bracketedChoice(text),
      to: value,
      writes: [{ path, journal: true, value, normalize: bracketedChoice }],
    };
  },
};
