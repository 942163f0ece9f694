// doctor's checks over facts gathered from fake trees (test/helpers/fake-proc.ts): the
// diagnosable lab machine, a stock kernel (no xrun_debug, with and without kprobes), no
// sound at all, a non-root user, a busy and a shared-IRQ card, garbage files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeSystemSpec } from '../../test/helpers/fake-proc.js';
import {
  createFakeSystem,
  dummyCard,
  hdaCard,
  kernelConfigText,
} from '../../test/helpers/fake-proc.js';
import { gatherFacts } from './gather-facts.js';
import type { DoctorReport } from './checks.js';
import { runChecks } from './checks.js';

const ROOT_STATUS = 'Name:\tnode\nUid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n';
const USER_STATUS = 'Name:\tnode\nUid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n';
const LIMITS =
  'Limit                     Soft Limit           Hard Limit           Units     \nMax realtime priority     0                    0                    \n';

/** The lab VM as doctor sees it: snd-dummy with xrun_debug, root, preempt=full. */
function labSpec(over: Partial<FakeSystemSpec> = {}): FakeSystemSpec {
  return {
    cards: [dummyCard({}, 0)],
    configGz: kernelConfigText({
      xrunDebug: true,
      hz: 1000,
      extra: ['CONFIG_PREEMPT_DYNAMIC=y', 'CONFIG_PREEMPT_VOLUNTARY=y'],
    }),
    ...over,
    proc: {
      'sys/kernel/osrelease': '6.1.192\n',
      'sys/kernel/version': '#1 SMP PREEMPT_DYNAMIC Sat Nov 28 12:00:00 UTC 2026\n',
      'sys/kernel/dmesg_restrict': '0\n',
      'sys/kernel/kptr_restrict': '0\n',
      cmdline: 'console=ttyS0 root=hostroot preempt=full threadirqs loglevel=1\n',
      'self/status': ROOT_STATUS,
      'self/limits': LIMITS,
      interrupts:
        '           CPU0       CPU1       \n  4:        120          0   IO-APIC   4-edge      ttyS0\n',
      ...over.proc,
    },
    dev: over.dev ?? { kmsg: '' },
    sys: {
      'devices/system/cpu/cpu0/cpufreq/scaling_governor': 'performance\n',
      'devices/system/cpu/cpu1/cpufreq/scaling_governor': 'performance\n',
      ...over.sys,
    },
  };
}

function doctor(t: { after(fn: () => void): void }, spec: FakeSystemSpec): DoctorReport {
  const fake = createFakeSystem(spec);
  t.after(() => fake.cleanup());
  return runChecks(
    gatherFacts({
      procRoot: fake.procRoot,
      sysRoot: fake.sysRoot,
      bootRoot: fake.bootRoot,
      devRoot: fake.devRoot,
    }),
  );
}

const byId = (r: DoctorReport, id: string) => {
  const c = r.checks.find((x) => x.id === id);
  assert.ok(c, `check ${id}`);
  return c;
};

test('lab machine: diagnosable through xrun_debug, every check ok', (t) => {
  const r = doctor(t, labSpec());
  assert.equal(r.diagnosable, true, r.conclusion);
  assert.equal(r.capture.backend, 'xrun_debug');
  assert.match(
    r.conclusion,
    /^This machine can be diagnosed: kernel XRUN stacks via xrun_debug\.$/,
  );
  assert.deepEqual(
    r.checks.filter((c) => c.status !== 'ok').map((c) => `${c.id}: ${c.summary}`),
    [],
  );
  assert.match(byId(r, 'sound').summary, /1 card, 2 PCM streams: card 0 Dummy \(Dummy\)/);
  assert.match(byId(r, 'xrun_debug').summary, /present on 2 streams \(mask 0\)/);
  assert.match(
    byId(r, 'preemption').summary,
    /"full" \(\/sys|"full" \(preempt= on the kernel command line\)/,
  );
  assert.equal(byId(r, 'hz').summary, 'HZ=1000');
  assert.match(byId(r, 'irq').summary, /card 0 Dummy: no interrupt line of its own/);
  assert.deepEqual(
    r.checks.map((c) => c.id),
    [
      'sound',
      'xrun_debug',
      'capture',
      'kernel_log',
      'privileges',
      'preemption',
      'threadirqs',
      'hz',
      'cpufreq',
      'device_holders',
      'irq',
    ],
  );
});

test('stock kernel without xrun_debug: the missing options are named; kprobe capture keeps it diagnosable', (t) => {
  const r = doctor(
    t,
    labSpec({
      cards: [hdaCard({}, null)],
      configGz: undefined,
      boot: { 'config-6.1.0-57-amd64': kernelConfigText({ xrunDebug: false }) },
      proc: {
        'sys/kernel/osrelease': '6.1.0-57-amd64\n',
        kallsyms:
          'ffffffffc0a1e000 t snd_pcm_update_state\t[snd_pcm]\nffffffffc0a1e0c0 T __snd_pcm_xrun\t[snd_pcm]\n',
      },
      sys: { 'kernel/tracing/kprobe_events': '', 'kernel/tracing/trace': '' },
    }),
  );
  const x = byId(r, 'xrun_debug');
  assert.equal(x.status, 'warn');
  assert.match(
    x.summary,
    /kernel 6\.1\.0-57-amd64 was built without CONFIG_SND_DEBUG, CONFIG_SND_PCM_XRUN_DEBUG \(from .*config-6\.1\.0-57-amd64\)/,
  );
  assert.equal(r.capture.backend, 'kprobe');
  assert.deepEqual(r.capture.offered, ['kprobe']);
  assert.match(byId(r, 'capture').summary, /this kernel offers: kprobe$/);
  assert.equal(byId(r, 'capture').status, 'ok');
  assert.equal(r.diagnosable, true, r.conclusion);
  assert.equal(byId(r, 'hz').summary, 'HZ=250');
});

test('stock kernel without kprobes either: blocked, conclusion says why and what to do', (t) => {
  const r = doctor(
    t,
    labSpec({
      cards: [hdaCard({}, null)],
      configGz: kernelConfigText({ xrunDebug: false }),
    }),
  );
  assert.equal(r.diagnosable, false);
  assert.equal(r.capture.backend, 'none');
  assert.deepEqual(r.capture.offered, []);
  assert.equal(byId(r, 'xrun_debug').status, 'fail');
  assert.equal(byId(r, 'capture').status, 'fail');
  assert.match(
    r.conclusion,
    /^This machine cannot be diagnosed as it is: not available: kernel 6\.1\.192 was built without CONFIG_SND_DEBUG/,
  );
  assert.match(r.conclusion, /What to do: use a kernel built with CONFIG_SND_DEBUG=y/);
});

test('no sound at all: sound, xrun_debug and capture fail', (t) => {
  const r = doctor(
    t,
    labSpec({ asound: false, cards: [], configGz: 'CONFIG_HZ=250\n# CONFIG_SOUND is not set\n' }),
  );
  assert.equal(r.diagnosable, false);
  assert.deepEqual(
    r.checks.filter((c) => c.status === 'fail').map((c) => c.id),
    ['sound', 'xrun_debug', 'capture'],
  );
  assert.match(byId(r, 'sound').summary, /built without sound support \(CONFIG_SND is not set\)/);
  assert.match(byId(r, 'sound').advice, /xrunhunt lab/);
  assert.equal(byId(r, 'irq').status, 'ok');
});

test('not root, kernel log unreadable: privileges warn, capture and kernel_log fail', (t) => {
  const r = doctor(
    t,
    labSpec({
      proc: { 'self/status': USER_STATUS, 'sys/kernel/dmesg_restrict': '1\n' },
      dev: {},
    }),
  );
  // the fake dev root has no kmsg at all: unreadable
  assert.equal(byId(r, 'privileges').status, 'warn');
  assert.match(
    byId(r, 'privileges').summary,
    /not root \(uid 1000\); real-time scheduling: no RLIMIT_RTPRIO and no CAP_SYS_NICE/,
  );
  assert.equal(byId(r, 'kernel_log').status, 'fail');
  assert.match(byId(r, 'kernel_log').advice, /dmesg_restrict=0/);
  assert.equal(byId(r, 'capture').status, 'fail');
  assert.equal(r.diagnosable, false);
});

test('card held by PipeWire, shared IRQ, powersave governor, voluntary preemption: warnings', (t) => {
  const card = hdaCard({}, 3);
  card.pcms[0]!.subs = [{ status: 'state: RUNNING\nowner_pid   : 4242\ntrigger_time: 1.0\n' }];
  const r = doctor(
    t,
    labSpec({
      cards: [card],
      proc: {
        '4242/comm': 'pipewire\n',
        '4243/comm': 'wireplumber\n',
        cmdline: 'quiet\n',
        'sys/kernel/version': '#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-1\n',
        interrupts:
          '           CPU0       CPU1       \n 33:       1234       5678   IO-APIC  16-fasteoi   ehci_hcd:usb1, snd_hda_intel:card1\n',
      },
      sys: { 'devices/system/cpu/cpu1/cpufreq/scaling_governor': 'powersave\n' },
    }),
  );
  assert.equal(r.diagnosable, true, r.conclusion);
  assert.match(byId(r, 'device_holders').summary, /pcmC1D0p sub0 RUNNING by pipewire \(pid 4242\)/);
  assert.equal(byId(r, 'device_holders').status, 'warn');
  assert.match(byId(r, 'irq').summary, /IRQ 33 of card 1 PCH is shared with ehci_hcd:usb1/);
  assert.match(byId(r, 'cpufreq').summary, /performance on 1 CPU, powersave on 1 CPU/);
  assert.match(
    byId(r, 'preemption').summary,
    /"voluntary" \(build default of a PREEMPT_DYNAMIC kernel\)/,
  );
  assert.equal(byId(r, 'threadirqs').status, 'warn');
  assert.match(byId(r, 'xrun_debug').summary, /messages and stack dumps already on/);
  assert.match(r.conclusion, /warnings \(.*device_holders.*\)/);
});

test('garbage in proc files: no crash, a warning where it matters', (t) => {
  const r = doctor(
    t,
    labSpec({
      cardsText: '\u0000\u0001 binary garbage\n',
      proc: {
        interrupts: 'garbage',
        'self/status': 'garbage',
        'self/limits': '',
        'sys/kernel/dmesg_restrict': 'x\n',
      },
      configGz: 'not a config',
    }),
  );
  assert.equal(byId(r, 'sound').status, 'warn');
  assert.match(byId(r, 'sound').advice, /cards: unrecognised line 1/);
  assert.equal(byId(r, 'hz').status, 'warn');
  assert.equal(r.capture.backend, 'xrun_debug');
});
