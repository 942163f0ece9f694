// `xrunhunt doctor` end to end: JSON shape and exit codes on fake trees, and a clear answer on
// this host (which has no sound support at all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { runCli } from '../helpers/cli.js';
import { createFakeSystem, dummyCard, kernelConfigText } from '../helpers/fake-proc.js';

function rootsOf(fake: ReturnType<typeof createFakeSystem>): string[] {
  return [
    '--proc-root',
    fake.procRoot,
    '--sys-root',
    fake.sysRoot,
    '--boot-root',
    fake.bootRoot,
    '--dev-root',
    fake.devRoot,
  ];
}

const common = {
  'sys/kernel/osrelease': '6.1.192\n',
  'sys/kernel/version': '#1 SMP PREEMPT_DYNAMIC\n',
  cmdline: 'preempt=full threadirqs\n',
  'self/status': 'Uid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n',
  interrupts: '           CPU0\n  4:   12   IO-APIC   4-edge      ttyS0\n',
};

test('diagnosable tree: exit 0, JSON { diagnosable, conclusion, capture, checks[] }', async (t) => {
  const fake = createFakeSystem({
    cards: [dummyCard({}, 0)],
    configGz: kernelConfigText({ xrunDebug: true, hz: 1000 }),
    proc: common,
    dev: { kmsg: '' },
  });
  t.after(() => fake.cleanup());
  const r = await runCli(['doctor', '--json', ...rootsOf(fake)]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.diagnosable, true);
  assert.equal(doc.capture.backend, 'xrun_debug');
  assert.ok(Array.isArray(doc.checks) && doc.checks.length >= 10);
  for (const c of doc.checks) {
    assert.deepEqual(Object.keys(c).sort(), ['advice', 'id', 'status', 'summary']);
    assert.ok(['ok', 'warn', 'fail'].includes(c.status));
    assert.equal(typeof c.summary, 'string');
  }
  assert.equal(doc.checks.filter((c: { id: string }) => c.id === 'xrun_debug').length, 1);
  const text = await runCli(['doctor', ...rootsOf(fake)]);
  assert.equal(text.code, 0);
  assert.match(text.stdout.split('\n')[0]!, /^This machine can be diagnosed/);
  assert.match(text.stdout, /^\[ ok \] xrun_debug\s+present on 2 streams/m);
});

test('no xrun_debug and no other capture: exit 2, the missing options named', async (t) => {
  const fake = createFakeSystem({
    cards: [dummyCard({}, null)],
    configGz: kernelConfigText({ xrunDebug: false }),
    proc: common,
    dev: { kmsg: '' },
  });
  t.after(() => fake.cleanup());
  const r = await runCli(['doctor', ...rootsOf(fake)]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(
    r.stdout.split('\n')[0]!,
    /^This machine cannot be diagnosed as it is: .*CONFIG_SND_DEBUG, CONFIG_SND_PCM_XRUN_DEBUG/,
  );
  assert.match(r.stdout, /^\[FAIL\] xrun_debug/m);
  assert.match(r.stdout, /^\[FAIL\] capture\s+none:/m);
});

test('no sound at all (fake): exit 2 with the sound check failing first', async (t) => {
  const fake = createFakeSystem({ asound: false, proc: common, dev: { kmsg: '' } });
  t.after(() => fake.cleanup());
  const r = await runCli(['doctor', '--json', ...rootsOf(fake)]);
  assert.equal(r.code, 2);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.diagnosable, false);
  assert.deepEqual(doc.checks[0], {
    id: 'sound',
    status: 'fail',
    summary: `no ${fake.procRoot}/asound: kernel 6.1.192 has no sound driver loaded`,
    advice: 'load your sound card driver (or "modprobe snd-dummy" to test), or run "xrunhunt lab"',
  });
});

test('this host: a clear conclusion, never a stack trace', async () => {
  const r = await runCli(['doctor']);
  assert.ok(r.code === 0 || r.code === 2, `exit ${r.code}: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /^\s+at /m);
  assert.match(r.stdout.split('\n')[0]!, /^This machine (can|cannot) be diagnosed/);
  if (!existsSync('/proc/asound')) {
    assert.equal(r.code, 2);
    assert.match(
      r.stdout,
      /^\[FAIL\] sound\s+.*(no sound driver loaded|built without sound support)/m,
    );
  }
  const j = await runCli(['doctor', '--json']);
  assert.equal(JSON.parse(j.stdout).diagnosable, j.code === 0);
});
