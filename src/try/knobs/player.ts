// Knobs of the player itself: its real-time priority and its CPU. They change the B rounds'
// session plan, not the machine, so there is nothing to journal; they are the knobs that
// show whether moving the audio thread away from a busy CPU (or above it) helps.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { parseInteger } from '../../units.js';
import { checkedCpuList } from './cpu-list.js';
import { UsageError } from '../../errors.js';
import type { KnobDefinition } from './contract.js';

/** The SCHED_FIFO priority of the player in the B rounds. */
export const playerPriorityKnob: KnobDefinition = {
  key: 'player.priority',
  example: 'player.priority=90',
  explain:
    "the player's SCHED_FIFO priority (0: SCHED_OTHER): above or below the threads that delay it",
  matches: (key) => key === 'player.priority',
  resolve(key, value) {
    const n = parseInteger(value, key, 0, 99);
    return {
      spec: `${key}=${n}`,
      what: "the player's real-time priority",
      from: 'the session default (--rt-priority)',
      to: n === 0 ? 'SCHED_OTHER' : `SCHED_FIFO ${n}`,
      writes: [],
      player: { rtPriority: n },
    };
  },
};

/** The CPU the player is pinned to in the B rounds. */
export const playerCpuKnob: KnobDefinition = {
  key: 'player.cpu',
  example: 'player.cpu=1',
  explain:
    "the CPU the player's thread is pinned to: off a CPU that a driver or the load keeps busy",
  matches: (key) => key === 'player.cpu',
  resolve(key, value, env) {
    const cpus = checkedCpuList(key, value, env);
    if (cpus.length !== 1)
      throw new UsageError(
        `invalid value "${quoteUntrusted(value, 60)}" for ${key}: expected one CPU, e.g. 1`,
      );
    return {
      spec: `${key}=${cpus[0]!}`,
      what: "the player's CPU",
      from: 'the session default (--cpu)',
      to: `CPU ${cpus[0]!}`,
      writes: [],
      player: { cpu: cpus[0]! },
    };
  },
};
