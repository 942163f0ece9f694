// irq.priority over a fake /proc: it finds the sound interrupt's kernel threads irq/N-… by
// comm (a user process calling itself irq/N-… is not one), reads their policy from stat, and
// without threaded interrupts refuses with the threadirqs boot line.
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { XrunhuntError } from '../../errors.js';
import { realSettingFileIo } from '../../proc/index.js';
import { parseSchedStat } from '../../proc/journal-sched.js';
import { createTryKnobTree } from '../../../test/helpers/try-knob-tree.js';
import { resolveKnob, type KnobEnv } from './index.js';

const PF_KTHREAD = 0x0020_0000;

/** A /proc/PID/stat line as 6.1 writes it, with the fields the knob reads set. */
function statLine(
  pid: number,
  comm: string,
  o: { flags: number; ticks: number; prio: number; policy: number },
): string {
  const f: (string | number)[] = Array.from({ length: 50 }, () => 0);
  f[0] = 'S';
  f[1] = 2;
  f[6] = o.flags;
  f[19] = o.ticks;
  f[37] = o.prio;
  f[38] = o.policy;
  return `${pid} (${comm}) ${f.join(' ')}\n`;
}

function treeWith(threads: { pid: number; comm: string; kthread: boolean }[], cmdline: string) {
  const tree = createTryKnobTree();
  for (const t of threads) {
    const dir = join(tree.procRoot, String(t.pid));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'comm'), `${t.comm}\n`);
    writeFileSync(
      join(dir, 'stat'),
      statLine(t.pid, t.comm, {
        flags: t.kthread ? PF_KTHREAD | 0x40 : 0x400100,
        ticks: 1000 + t.pid,
        prio: 50,
        policy: 1,
      }),
    );
  }
  writeFileSync(join(tree.procRoot, 'cmdline'), cmdline);
  const env: KnobEnv = {
    procRoot: tree.procRoot,
    sysRoot: tree.sysRoot,
    devRoot: tree.devRoot,
    io: realSettingFileIo,
  };
  return { tree, env };
}

const trees: { cleanup(): void }[] = [];
after(() => trees.forEach((t) => t.cleanup()));

test('parseSchedStat reads flags, start time, rt_priority and policy after the last ")"', () => {
  const line = statLine(7, 'a) (b', { flags: PF_KTHREAD, ticks: 42, prio: 50, policy: 1 });
  assert.deepEqual(parseSchedStat(line), {
    flags: PF_KTHREAD,
    startTicks: 42,
    priority: 50,
    policy: 1,
  });
  assert.equal(parseSchedStat('garbage'), null);
});

test("irq.priority finds the sound interrupt's kernel threads and reads their policy", () => {
  const { tree, env } = treeWith(
    [
      { pid: 180, comm: 'irq/33-snd_hda_', kthread: true },
      { pid: 181, comm: 'irq/34-xhci_hcd', kthread: true },
      { pid: 5000, comm: 'irq/33-fake', kthread: false },
    ],
    'BOOT_IMAGE=/vmlinuz root=/dev/sda1 threadirqs\n',
  );
  trees.push(tree);
  const c = resolveKnob('irq.priority=90', env);
  assert.equal(c.spec, 'irq.33.priority=90');
  assert.equal(c.what, 'the priority of irq/33-snd_hda_');
  assert.equal(c.from, 'SCHED_FIFO 50');
  assert.equal(c.to, 'SCHED_FIFO 90');
  assert.deepEqual(c.writes, []);
  assert.deepEqual(
    c.threads?.map((t) => [t.path, t.thread.pid, t.thread.startTicks, t.policy, t.priority]),
    [[join(tree.procRoot, '180'), 180, 1180, 1, 90]],
  );
  assert.equal(resolveKnob('irq.34.priority=60', env).threads?.[0]?.thread.comm, 'irq/34-xhci_hcd');
  assert.throws(() => resolveKnob('irq.priority=100', env), /irq.priority/);
  assert.throws(
    () => resolveKnob('irq.35.priority=60', env),
    /interrupt 35 has no thread .* although threadirqs is on/,
  );
});

test('without threaded interrupts irq.priority explains the boot line', () => {
  const { tree, env } = treeWith([], 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n');
  trees.push(tree);
  assert.throws(
    () => resolveKnob('irq.priority=90', env),
    (e: unknown) =>
      e instanceof XrunhuntError &&
      /interrupt 33 has no thread \(irq\/33-…\): interrupts are not threaded/.test(e.message) &&
      /add threadirqs to the kernel command line/.test(e.hint ?? ''),
  );
});
