// The load's CPU pin, over real worker processes: every thread of a pinned worker runs on
// the asked CPUs only (read back from /proc/PID/task/*/status), and a CPU that is not online
// ends the load as failed with the reason instead of running unpinned.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import type { ChildProcess } from 'node:child_process';
import { ChildProcessLoad, spawnWorkerProcess } from './child-load.js';
import { realMachine } from './preflight.js';
import { cpuMask } from './pin-process.js';

function allowedLists(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(
      (tid) =>
        /Cpus_allowed_list:\s*(\S+)/.exec(
          readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'),
        )?.[1] ?? '?',
    );
  } catch {
    return [];
  }
}

test('cpuMask sets one bit per CPU and refuses out-of-range CPUs', () => {
  const m = cpuMask([0, 3, 9])!;
  assert.deepEqual([m[0], m[1], m.length], [0b1001, 0b10, 128]);
  assert.equal(cpuMask([1024]), null);
  assert.equal(cpuMask([]), null);
});

test(
  'a pinned cpu load runs every thread of its worker on the asked CPU',
  { skip: availableParallelism() < 2 ? 'needs 2 CPUs' : false },
  async () => {
    const children: ChildProcess[] = [];
    const load = new ChildProcessLoad(
      'cpu',
      { durationMs: 3000, workers: 1, cpus: [1] },
      {
        machine: realMachine,
        spawnWorker: (c) => {
          const child = spawnWorkerProcess(c);
          children.push(child);
          return child;
        },
      },
    );
    const run = load.start();
    // The worker pins itself as it starts (under load 10 Node takes a while to start).
    let seen: string[] = [];
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const pid = children[0]?.pid;
      if (pid === undefined) continue;
      seen = allowedLists(pid);
      if (seen.length > 0 && seen.every((l) => l === '1')) break;
    }
    const stats = await run;
    assert.ok(seen.length > 1, `the worker's threads were read (${seen.length})`);
    assert.deepEqual([...new Set(seen)], ['1'], 'every thread is allowed CPU 1 only');
    assert.equal(stats.stopReason, 'duration');
    assert.ok(stats.bytes > 0, 'the pinned worker did work');
  },
);

test('a CPU that is not online fails the load with the reason', async () => {
  const stats = await new ChildProcessLoad('cpu', {
    durationMs: 2000,
    workers: 1,
    cpus: [1000],
  }).start();
  assert.equal(stats.stopReason, 'failed');
  assert.match(stats.stopDetail ?? '', /cannot pin the load to CPU 1000: errno 22/);
});
