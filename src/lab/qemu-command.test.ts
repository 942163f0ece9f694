import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kernelCommandLine, qemuArgs, type BootPlan } from './qemu-command.js';

const plan: BootPlan = {
  accel: 'tcg',
  cpus: 2,
  memMiB: 1024,
  kernelImage: '/cache/bzImage',
  initPath: '/work/main/lab/guest/init.sh',
  preempt: 'full',
  threadirqs: false,
  resultsDir: '/tmp/r',
  scratchImage: '/tmp/s.img',
  stdoutFile: '/tmp/o',
  stderrFile: '/tmp/e',
};

test('kernel command line carries the recipe arguments and the chosen preemption model', () => {
  const line = kernelCommandLine(plan);
  for (const part of [
    'loglevel=1',
    'log_buf_len=8M',
    'snd_dummy.hrtimer=1',
    'no_timer_check',
    'preempt=full',
    'root=hostroot',
    'rootfstype=9p',
    'init=/work/main/lab/guest/init.sh',
  ]) {
    assert.ok(line.split(' ').includes(part), part);
  }
  assert.ok(!line.includes('threadirqs'));
  assert.ok(
    kernelCommandLine({ ...plan, threadirqs: true })
      .split(' ')
      .includes('threadirqs'),
  );
});

test('qemu argv: accelerator, read-only root, writable results, scratch disk, two ports', () => {
  const a = qemuArgs(plan);
  const after = (flag: string) => a.filter((_, i) => a[i - 1] === flag);
  assert.deepEqual(after('-accel'), ['tcg']);
  assert.ok(!a.includes('host'), 'no -cpu host under TCG');
  const virtfs = after('-virtfs');
  assert.match(virtfs[0]!, /path=\/,mount_tag=hostroot,.*readonly=on/);
  assert.match(virtfs[1]!, /path=\/tmp\/r,mount_tag=xrresults/);
  assert.doesNotMatch(virtfs[1]!, /readonly/);
  assert.deepEqual(after('-drive'), ['file=/tmp/s.img,format=raw,if=virtio,cache=none']);
  assert.deepEqual(
    after('-device').filter((d) => d.startsWith('virtserialport')),
    [
      'virtserialport,chardev=xrstdout,nr=1,name=xrunhunt.stdout',
      'virtserialport,chardev=xrstderr,nr=2,name=xrunhunt.stderr',
    ],
  );
  assert.deepEqual(after('-accel').length, 1);
  const kvm = qemuArgs({ ...plan, accel: 'kvm', scratchImage: undefined });
  assert.deepEqual(kvm.slice(0, 4), ['-accel', 'kvm', '-cpu', 'host']);
  assert.ok(!kvm.includes('-drive'));
});

test('qemu argv attaches the requested sound cards after the lab devices', () => {
  assert.ok(!qemuArgs(plan).includes('-audiodev'), 'no cards: snd-dummy only');
  const a = qemuArgs({ ...plan, cards: ['dummy', 'hda'] });
  const after = (flag: string) => a.filter((_, i) => a[i - 1] === flag);
  assert.deepEqual(after('-audiodev'), ['none,id=xrsnd-hda']);
  assert.deepEqual(after('-device').slice(-2), [
    'ich9-intel-hda,id=xrhda,msi=on',
    'hda-output,bus=xrhda.0,audiodev=xrsnd-hda',
  ]);
});
