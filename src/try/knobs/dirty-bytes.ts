// Knob: vm.dirty_background_bytes / vm.dirty_bytes, the writeback thresholds. Smaller values
// turn one long writeback burst into many short ones. The kernel keeps each *_bytes paired
// with its *_ratio (writing one zeroes the other), so the one in force is what is journaled.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { parseSize } from '../../units.js';
import { trimmed, type KnobDefinition, type SettingWrite } from './contract.js';

const PAIRS: Record<string, string> = {
  'vm.dirty_bytes': 'dirty_ratio',
  'vm.dirty_background_bytes': 'dirty_background_ratio',
};

// The smallest value each file takes: vm.dirty_bytes refuses less than two pages (EINVAL for
// 4096 and 8191 on a 4 KiB-page x86 kernel, measured); a background threshold under a page
// means nothing, so both stay at or above what the kernel accepts on every page size we run.
const MIN_BYTES: Record<string, { bytes: number; text: string }> = {
  'vm.dirty_bytes': { bytes: 8192, text: '8K (the kernel refuses less than two pages)' },
  'vm.dirty_background_bytes': { bytes: 4096, text: '4K (one page)' },
};

/** Changes one writeback threshold in bytes. */
export const dirtyBytesKnob: KnobDefinition = {
  key: 'vm.dirty_bytes | vm.dirty_background_bytes',
  example: 'vm.dirty_bytes=64M',
  explain:
    'the dirty-page writeback thresholds (/proc/sys/vm/dirty_*bytes): smaller ones make writeback bursts shorter',
  matches: (key) => key in PAIRS,
  resolve(key, value, env) {
    const bytes = parseSize(value, `value for ${key}`);
    const min = MIN_BYTES[key]!;
    if (bytes < min.bytes)
      throw new UsageError(
        `invalid value "${quoteUntrusted(value, 60)}" for ${key}: expected at least ${min.text}; 0 would mean "use the ratio", which is what restore does`,
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
