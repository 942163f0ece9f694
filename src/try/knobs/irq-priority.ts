// Knob: the SCHED_FIFO priority of the sound card's interrupt thread (irq/N-…, which exists
// when interrupts are threaded: the threadirqs boot option or a PREEMPT_RT kernel). Raising
// it above the other IRQ threads (all at FIFO 50 by default) is what rtirq does. The thread's
// policy is journaled with kind 'sched' (src/proc/journal-sched.ts) and put back on that same
// thread only. Without threaded interrupts there is nothing to change at run time: the knob
// refuses with the boot line.
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { readThreadSched, SCHED_FIFO, type ThreadSched } from '../../proc/journal-sched.js';
import { parseInteger } from '../../units.js';
import { bootOnlyError } from './boot-only.js';
import type { KnobDefinition, KnobEnv } from './contract.js';
import { soundIrq } from './irq-affinity.js';

/** The kernel threads of interrupt `irq` (comm `irq/IRQ-…`) under `procRoot`. */
export function irqThreads(env: KnobEnv, irq: number): ThreadSched[] {
  const prefix = `irq/${irq}-`;
  const out: ThreadSched[] = [];
  let names: string[];
  try {
    names = readdirSync(env.procRoot);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const t = readThreadSched(env.procRoot, Number(name), env.io);
    // Kernel threads only (PF_KTHREAD): a user process may call itself irq/N-….
    if (t && t.comm.startsWith(prefix) && (t.flags & 0x0020_0000) !== 0) {
      out.push({
        pid: t.pid,
        comm: t.comm,
        startTicks: t.startTicks,
        policy: t.policy,
        priority: t.priority,
      });
    }
  }
  return out.sort((a, b) => a.pid - b.pid);
}

function threadedInterrupts(env: KnobEnv): boolean {
  try {
    const cmdline = env.io.read(join(env.procRoot, 'cmdline'));
    return /(^|\s)threadirqs(\s|$)/.test(cmdline);
  } catch {
    return false;
  }
}

const policyText = (t: { policy: number; priority: number }): string =>
  t.policy === SCHED_FIFO
    ? `SCHED_FIFO ${t.priority}`
    : t.policy === 0
      ? 'SCHED_OTHER'
      : `policy ${t.policy} priority ${t.priority}`;

/** Sets the real-time priority of an interrupt's thread(s). */
export const irqPriorityKnob: KnobDefinition = {
  key: 'irq.priority | irq.N.priority',
  example: 'irq.priority=90',
  explain:
    "the SCHED_FIFO priority of the sound interrupt's thread irq/N-… (threadirqs): above the other interrupt threads, as rtirq does",
  matches: (key) => /^irq\.(\d+\.)?priority$/.test(key),
  resolve(key, value, env) {
    const n = /^irq\.(\d+)\.priority$/.exec(key);
    const irq = n ? Number(n[1]) : soundIrq(env, 'irq.priority');
    const priority = parseInteger(value, key, 1, 99);
    const threads = irqThreads(env, irq);
    if (threads.length === 0) {
      if (!threadedInterrupts(env)) {
        const boot = bootOnlyError('threadirqs', '');
        throw new UsageError(
          `invalid knob "${quoteUntrusted(key, 60)}": interrupt ${irq} has no thread (irq/${irq}-…): interrupts are not threaded on this kernel, so there is no priority to set`,
          { hint: boot.hint ?? 'add threadirqs to the kernel command line' },
        );
      }
      throw new UsageError(
        `invalid knob "${quoteUntrusted(key, 60)}": interrupt ${irq} has no thread (irq/${irq}-…) although threadirqs is on`,
        {
          hint: 'the line is not threaded (a per-CPU or IRQF_NO_THREAD interrupt) or has no handler yet; see "ps -eo pid,rtprio,comm | grep irq/" for the threaded lines',
        },
      );
    }
    return {
      spec: `irq.${irq}.priority=${priority}`,
      what: `the priority of ${threads.map((t) => t.comm).join(', ')}`,
      from: [...new Set(threads.map(policyText))].join(', '),
      to: `SCHED_FIFO ${priority}`,
      writes: [],
      threads: threads.map((t) => ({
        path: join(env.procRoot, String(t.pid)),
        thread: t,
        policy: SCHED_FIFO,
        priority,
      })),
    };
  },
};
