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
    // A long duration, ended by abort once the pin is seen: under load 25 a worker's Node took
    // longer to start than a short load lasted, and was stopped before it had pinned itself.
    const load = new ChildProcessLoad(
      'cpu',
      { durationMs: 60_000, workers: 1, cpus: [1] },
      {
        machine: realMachine,
        spawnWorker: (c) => {
          const child = spawnWorkerProcess(c);
          children.push(child);
          return child;
        },
      },
    );
    const stop = new AbortController();
    const run = load.start(stop.signal);
    let seen: string[] = [];
    for (let i = 0; i < 1000; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const pid = children[0]?.pid;
      if (pid === undefined) continue;
      seen = allowedLists(pid);
      if (seen.length > 1 && seen.every((l) => l === '1')) break;
    }
    // Let the pinned worker do (and report) some work before it is stopped.
    await new Promise((r) => setTimeout(r, 1000));
    stop.abort();
    const stats = await run;
    assert.ok(seen.length > 1, `the worker's threads were read (${seen.length})`);
    assert.deepEqual([...new Set(seen)], ['1'], 'every thread is allowed CPU 1 only');
    assert.equal(stats.stopReason, 'interrupted');
    assert.ok(stats.bytes > 0, 'the pinned worker did work');
  },
);

test('a CPU that is not online fails the load with the reason', async () => {
  // Long enough that a slow worker start (load 25) is never cut short: the pin fails at once.
  const stats = await new ChildProcessLoad('cpu', {
    durationMs: 120_000,
    workers: 1,
    cpus: [1000],
  }).start();
  assert.equal(stats.stopReason, 'failed');
  assert.match(stats.stopDetail ?? '', /cannot pin the load to CPU 1000: errno 22/);
});
