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
  refuses('scheduler.sdz=none', /no block device "sdz"/);
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
  refuses('vm.dirty_bytes=100', /at least 8K/);
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

// Issue 30 item 4: `vm.dirty_bytes=99999999999999999999999G` became 1.07e+32, a whole A round
// ran and B failed with EINVAL; `vm.swappiness=' 10'` was accepted. Values are parsed exactly,
// to what the kernel file takes, before any round.
test('values are parsed exactly: no spaces, no float notation, no overflow, kernel minimums', () => {
  refuses('vm.dirty_bytes=99999999999999999999999G', /too large/);
  refuses('vm.dirty_bytes=1e9', /no spaces, e\.g\. 512K/);
  refuses('vm.dirty_bytes= 64M', /no spaces/);
  refuses('vm.dirty_bytes=0.3K', /not a whole number of bytes/);
  refuses('vm.dirty_bytes=4096', /at least 8K/);
  assert.equal(resolveKnob('vm.dirty_bytes=1.5M', env).to, '1572864 bytes');
  refuses('vm.swappiness= 10', /digits only, no spaces/);
  refuses('vm.swappiness=10 ', /digits only, no spaces/);
  refuses('vm.swappiness=1e1', /digits only/);
  refuses('vm.swappiness=99999999999999999999', /expected a value from 0 to 200/);
  refuses('cpu.max_latency_us=0x10', /digits only/);
  refuses('player.priority=+5', /digits only/);
  refuses('load.cpu= 0', /no spaces/);
  // A range of 10^11 CPUs was a loop of 10^11 steps: refused at once.
  refuses('load.cpu=0-99999999999', /CPUs below 8192/);
  assert.equal(parseCpuList('0-8191')?.length, 8192);
  assert.equal(parseCpuList('0-8192'), null);
});

// Issue 30 item 5: `try $'thp=\e]0;pwned\a'` printed the escape bytes to the terminal.
test('knob names and values are quoted inert in every refusal', () => {
  const hostile = [
    'thp=\u001b]0;pwned\u0007',
    'vm.swappiness=\u001b[2J',
    'vm.dirty_bytes=\u001b[2J',
    'scheduler.\u001b[2J=none',
    'cpufreq.governor=\u009b31m',
    'preempt=\u001b[2J',
    'load.cpu=\r0',
    'player.cpu=\u001b[1m',
    '\u001b]0;x\u0007=1',
    'threadirqs=\u001b[2J',
  ];
  for (const spec of hostile) {
    let text = '';
    try {
      resolveKnob(spec, env);
    } catch (e) {
      assert.ok(e instanceof XrunhuntError, spec);
      text = `${e.message} ${e.hint ?? ''}`;
    }
    assert.notEqual(text, '', `${JSON.stringify(spec)} was accepted`);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(text, /[\u0000-\u001f\u007f-\u009f]/, JSON.stringify(spec));
  }
});
