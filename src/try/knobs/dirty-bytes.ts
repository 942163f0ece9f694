// Knob: vm.dirty_background_bytes / vm.dirty_bytes, the writeback thresholds. Smaller values
// turn one long writeback burst into many short ones. The kernel keeps each *_bytes paired
// with its *_ratio (writing one zeroes the other), so the one in force is what is journaled.
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { parseSize } from '../../units.js';
import { trimmed, type KnobDefinition, type SettingWrite } from './contract.js';

const PAIRS: Record<string, string> = {
  'vm.dirty_bytes': 'dirty_ratio',
  'vm.dirty_background_bytes': 'dirty_background_ratio',
};

/** Changes one writeback threshold in bytes. */
export const dirtyBytesKnob: KnobDefinition = {
  key: 'vm.dirty_bytes | vm.dirty_background_bytes',
  example: 'vm.dirty_bytes=64M',
  explain:
    'the dirty-page writeback thresholds (/proc/sys/vm/dirty_*bytes): smaller ones make writeback bursts shorter',
  matches: (key) => key in PAIRS,
  resolve(key, value, env) {
    const bytes = parseSize(value, key);
    if (bytes < 4096)
      throw new UsageError(
        `invalid value "${value}" for ${key}: expected at least 4K (the kernel refuses smaller thresholds; 0 means "use the ratio")`,
      );
    const name = key.slice('vm.'.length);
    const dir = join(env.procRoot, 'sys', 'vm');
    const bytesPath = join(dir, name);
    const ratioPath = join(dir, PAIRS[key]!);
    const current = trimmed(env.io.read(bytesPath));
    const ratio = trimmed(env.io.read(ratioPath));
    const byBytes = current !== '0';
    // Bytes mode: restoring the bytes puts them back (the ratio is 0 and stays 0). Ratio mode:
    // restoring the ratio puts it back and zeroes the bytes (which refuse a 0 written to them).
    const writes: SettingWrite[] = byBytes
      ? [{ path: bytesPath, value: String(bytes), journal: true, normalize: trimmed }]
      : [
          { path: ratioPath, value: null, journal: true, normalize: trimmed },
          { path: bytesPath, value: String(bytes), journal: false },
        ];
    return {
      spec: `${key}=${bytes}`,
      what: key,
      from: byBytes ? `${current} bytes` : `${ratio} % of memory (${PAIRS[key]})`,
      to: `${bytes} bytes`,
      writes,
    };
  },
};
