// Every knob over a fake /proc + /sys tree: what it reads as the current value, what it will
// write, and the clear refusal of a bad value, an unknown knob and a reboot-only one.
import { strict as assert } from 'node:assert';
import { after, test } from 'node:test';
import { join } from 'node:path';
import { realSettingFileIo } from '../../proc/index.js';
import { XrunhuntError } from '../../errors.js';
import { createTryKnobTree } from '../../../test/helpers/try-knob-tree.js';
import { resolveKnob, resolveKnobs, type KnobEnv } from './index.js';
import { soundInterrupts } from './irq-affinity.js';
import { parseCpuList } from './cpu-list.js';
import { depsFor, type TryRunOptions } from '../try-run.js';
import type { SessionDeps } from '../../session/run-session.js';
import {
  createLoad,
  type LoadGenerator,
  type LoadKind,
  type LoadOptions,
} from '../../load/index.js';

const tree = createTryKnobTree();
after(() => tree.cleanup());
const env: KnobEnv = {
  procRoot: tree.procRoot,
  sysRoot: tree.sysRoot,
  devRoot: tree.devRoot,
  io: realSettingFileIo,
};
const refuses = (spec: string, re: RegExp): void =>
  assert.throws(
    () => resolveKnob(spec, env),
    (e: unknown) => e instanceof XrunhuntError && re.test(`${e.message} ${e.hint ?? ''}`),
    spec,
  );

test('scheduler.DEV reads the bracketed scheduler and offers only what the kernel lists', () => {
  const c = resolveKnob('scheduler.sda=bfq', env);
  assert.equal(c.from, 'mq-deadline');
  assert.equal(c.to, 'bfq');
  assert.deepEqual(
    c.writes.map((w) => [w.path, w.value]),
    [[join(tree.sysRoot, 'block/sda/queue/scheduler'), 'bfq']],
  );
  refuses('scheduler.sda=cfq', /offers mq-deadline, kyber, bfq, none/);
  refuses('scheduler.sdz=none', /no block device sdz/);
});

test('vm.dirty_bytes in ratio mode journals the ratio and writes the bytes unjournaled', () => {
  const c = resolveKnob('vm.dirty_bytes=64M', env);
  assert.equal(c.from, '20 % of memory (dirty_ratio)');
  assert.equal(c.to, '67108864 bytes');
  assert.deepEqual(
    c.writes.map((w) => [w.path.slice(tree.procRoot.length), w.value, w.journal]),
    [
      ['/sys/vm/dirty_ratio', null, true],
      ['/sys/vm/dirty_bytes', '67108864', false],
    ],
  );
  const bg = resolveKnob('vm.dirty_background_bytes=16M', env);
  assert.equal(bg.from, '67108864 bytes');
  assert.deepEqual(
    bg.writes.map((w) => [w.value, w.journal]),
    [['16777216', true]],
  );
  refuses('vm.dirty_bytes=100', /at least 4K/);
  refuses('vm.dirty_bytes=lots', /expected a number with a unit/);
});

test('vm.swappiness, thp and the governor read their current values', () => {
  assert.equal(resolveKnob('vm.swappiness=10', env).from, '60');
  refuses('vm.swappiness=300', /swappiness/);
  const thp = resolveKnob('thp=never', env);
  assert.equal(thp.from, 'madvise');
  refuses('thp=sometimes', /expected always, madvise, never/);
  const g = resolveKnob('cpufreq.governor=performance', env);
  assert.equal(g.from, 'schedutil');
  assert.equal(g.writes.length, 4);
  refuses('cpufreq.governor=ondemand', /offers performance, powersave, schedutil/);
});

test("irq.affinity finds the sound card's line in /proc/interrupts", () => {
  assert.deepEqual(soundInterrupts(tree.readProc('interrupts')), [
    { irq: 33, actions: 'snd_hda_intel:card0' },
  ]);
  const c = resolveKnob('irq.affinity=2-3', env);
  assert.equal(c.what, 'the affinity of interrupt 33');
  assert.equal(c.from, '0-3');
  assert.equal(c.to, '2,3');
  assert.equal(resolveKnob('irq.34.affinity=1', env).what, 'the affinity of interrupt 34');
  refuses('irq.affinity=7', /CPU 7 is not online \(online: 0,1,2,3\)/);
  refuses('irq.affinity=3-1', /expected a CPU list/);
  assert.deepEqual(parseCpuList('0-2,5'), [0, 1, 2, 5]);
});

test('cpu.max_latency_us holds a request instead of writing a setting', () => {
  const c = resolveKnob('cpu.max_latency_us=0', env);
  assert.deepEqual(c.writes, []);
  assert.equal(c.hold?.path, join(tree.devRoot, 'cpu_dma_latency'));
  assert.deepEqual([...c.hold!.bytes], [0, 0, 0, 0]);
});

test('player knobs change the plan only', () => {
  assert.deepEqual(resolveKnob('player.priority=90', env).player, { rtPriority: 90 });
  assert.deepEqual(resolveKnob('player.cpu=1', env).player, { cpu: 1 });
  refuses('player.cpu=1-2', /expected one CPU/);
});

test("load.cpu pins the B rounds' loads only: A keeps the caller's createLoad", () => {
  const c = resolveKnob('load.cpu=0-1,3', env);
  assert.deepEqual(c.load, { cpus: [0, 1, 3] });
  assert.deepEqual([c.spec, c.writes], ['load.cpu=0,1,3', []]);
  refuses('load.cpu=9', /CPU 9 is not online/);
  refuses('load.cpu=one', /expected a CPU list/);
  const seen: (number[] | undefined)[] = [];
  const deps = {
    createLoad: (_kind: LoadKind, options: LoadOptions): LoadGenerator => {
      seen.push(options.cpus);
      return createLoad('idle', { durationMs: 1 });
    },
  } as unknown as SessionDeps;
  const o = { changes: [c] } as unknown as TryRunOptions;
  assert.equal(depsFor(o, 'A', deps), deps);
  depsFor(o, 'B', deps).createLoad('cpu', { durationMs: 5 });
  assert.deepEqual(seen, [[0, 1, 3]]);
});

test('unknown, malformed, duplicate and reboot-only knobs are refused with what to do', () => {
  refuses('vm.overcommit=1', /unknown knob "vm.overcommit".*knobs: scheduler\.DEV/);
  refuses('swappiness', /expected KNOB=VALUE/);
  refuses('vm.swappiness=', /expected KNOB=VALUE/);
  refuses('threadirqs', /needs a reboot.*add threadirqs to the kernel command line/);
  refuses('preempt=full', /preempt=full to the kernel command line/);
  assert.throws(
    () => resolveKnobs(['vm.swappiness=1', 'vm.swappiness=2'], env),
    /two knobs change the same setting/,
  );
  assert.throws(() => resolveKnobs([], env), /at least one KNOB=VALUE/);
});
