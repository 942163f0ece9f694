// Knob: the deepest C-state the CPUs may enter, by a PM QoS request on /dev/cpu_dma_latency.
// The request lasts while the file is open and the kernel drops it when it closes, so the B
// rounds hold it open and nothing is journaled: even kill -9 puts it back.
import { join } from 'node:path';
import { parseInteger } from '../../units.js';
import type { KnobDefinition } from './contract.js';

/** The request's bytes: one native-endian s32 of microseconds (Documentation/power/pm_qos_interface.rst). */
export function latencyRequestBytes(us: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(us);
  return b;
}

/** Limits the C-state exit latency during the B rounds. */
export const cpuDmaLatencyKnob: KnobDefinition = {
  key: 'cpu.max_latency_us',
  example: 'cpu.max_latency_us=0',
  explain:
    'the deepest C-state allowed, as a PM QoS request held on /dev/cpu_dma_latency (0: stay in C0/poll); a deep C-state takes long to wake from',
  matches: (key) => key === 'cpu.max_latency_us',
  resolve(key, value, env) {
    const us = parseInteger(value, key, 0, 2_000_000_000);
    return {
      spec: `${key}=${us}`,
      what: 'the allowed C-state exit latency',
      from: 'no request (deepest C-state allowed)',
      to: `${us} µs`,
      writes: [],
      hold: { path: join(env.devRoot, 'cpu_dma_latency'), bytes: latencyRequestBytes(us) },
    };
  },
};
