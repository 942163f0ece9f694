// The lab helper's reading of kprobe XRUN records, on a kernel.log captured in the lab.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { kprobeXrunRecords } from './wakeup-records.js';

test('kprobe records: task, context column and stack functions of each xrun hit', () => {
  const log = readFileSync(
    join(
      repoRoot,
      'test/fixtures/kernel-logs/lab-debian-6.1.0-57-amd64-kprobe-xrunhunt_inject-injection.txt',
    ),
    'utf8',
  );
  const r = kprobeXrunRecords(log);
  assert.equal(r.length, 225);
  const [first, second] = r;
  // d..1. in the writer's write: process context, inside the ioctl.
  assert.deepEqual(
    { comm: first!.comm, pid: first!.pid, hard: first!.hardirq, soft: first!.softirq },
    { comm: 'node', pid: 213, hard: false, soft: false },
  );
  assert.ok(first!.frames.includes('snd_pcm_common_ioctl'));
  assert.equal(first!.frames.at(-1), 'entry_SYSCALL_64_after_hwframe');
  // dNs1. in snd-dummy's hrtimer softirq over insmod.
  assert.equal(second!.comm, 'insmod');
  assert.equal(second!.softirq, true);
  assert.ok(second!.frames.includes('snd_pcm_period_elapsed'));
  // Every stack starts in the kprobe handler; one hit of the capture lost its stack.
  const noStack = r.filter((x) => x.frames.length === 0);
  assert.equal(noStack.length, 1);
  assert.ok(r.every((x) => x.frames.length === 0 || x.frames[0] === 'kprobe_trace_func'));
});
