// Emulated sound hardware in the lab (`lab … --card hda|usb|ac97`) on the default kernel
// (debian-debug: the drivers are our xrun_debug modules, loaded at boot): the real snd-hda-intel, snd-usb-audio and snd-intel8x0 drivers
// behind QEMU's ich9-intel-hda, usb-audio and AC97. Serial (the two card checks share one boot, TCG).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSections, labSkip } from '../helpers/lab.js';
import { innerXrunhuntArgv } from '../../src/lab/lab-runner.js';
import { shellQuote } from '../../src/lab/guest-script.js';
import { runCli, repoRoot } from '../helpers/cli.js';
import { analyzeLog } from './lab-analyze.js';
import type { SessionReport } from '../../src/session/report-model.js';

const skip = labSkip();
const work = mkdtempSync(join(tmpdir(), 'xrunhunt-cards-lab-'));
after(() => rmSync(work, { recursive: true, force: true }));

const WAKEUP_PROBE = join(repoRoot, 'test', 'lab', 'cards-period-wakeup.mjs');

interface WakeupProbe {
  device: string;
  canDisablePeriodWakeup: number;
  wakeupOff: number | null;
  hwParams: number;
  written: number;
}

// The probe's JSON line for one device from the run's stdout.
function wakeupLine(stdout: string, device: string): WakeupProbe {
  const line = stdout
    .split('\n')
    .find((l) => l.startsWith('{') && l.includes(`"device":"${device}"`));
  assert.ok(line, `a period-wakeup line for ${device} in:\n${stdout}`);
  return JSON.parse(line) as WakeupProbe;
}

test("a kernel without a card's driver is refused before boot, naming the driver", async () => {
  // Everything the lab itself needs, but no snd-intel8x0: --card ac97 must fail up front.
  const dir = join(work, 'no-ac97');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bzImage'), 'not booted');
  writeFileSync(
    join(dir, 'config'),
    [
      'CONFIG_NET_9P_VIRTIO=y',
      'CONFIG_9P_FS=y',
      'CONFIG_VIRTIO_PCI=y',
      'CONFIG_SND_DUMMY=y',
      'CONFIG_SND_PCM_XRUN_DEBUG=y',
      'CONFIG_HIGH_RES_TIMERS=y',
      '# CONFIG_SND_INTEL8X0 is not set',
      '',
    ].join('\n'),
  );
  const r = await runCli(
    ['lab', 'exec', '--kernel', join(dir, 'bzImage'), '--card', 'ac97', '--', 'true'],
    { timeoutMs: 60_000 },
  );
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /--card ac97 needs CONFIG_SND_INTEL8X0 \(not set\)/);
  assert.match(r.stderr, new RegExp(`config read from ${join(dir, 'config')}`));
  assert.doesNotMatch(r.stderr, /booting|at .*\.ts:\d+/, 'no boot, no stack trace');
});

// One boot for the two card checks below: the three emulated cards first, with the injector
// paused (--inject-paused), their slice of the kernel log taken (three-dmesg.txt), then the
// injector resumed and the HDA lockup session. The lockup session had a boot of its own
// (`lab session --card hda --inject lockup:10:irq`); here the other cards are present but idle.
// With --inject the lab pins the whole script to CPU 0 and steers every device interrupt there.
let guestRun: Promise<{ out: string; r: Awaited<ReturnType<typeof execInLab>> }> | undefined;
const sharedGuest = (): NonNullable<typeof guestRun> =>
  (guestRun ??= (async () => {
    const out = join(work, 'cards');
    const usb = '/proc/asound/Audio/pcm0p';
    const aplay = (id: string, period: number, secs: number, err: string) =>
      `aplay -D hw:CARD=${id},DEV=0 -t raw -f S16_LE -r 48000 -c 2 --period-size=${period} --buffer-size=${period * 4} -d ${secs} /dev/zero 2> ${err}`;
    const script = [
      'cat /proc/asound/cards',
      // usb: 4 s at period 256 / buffer 1024 must play through.
      `${aplay('Audio', 256, 4, 'usb.err')}; echo "usb aplay rc=$?"`,
      // Then one forced XRUN (xrun_injection) once the stream runs: its dump must be captured.
      // (After an XRUN the driver's restart fails with EIO under QEMU: aplay's exit is not checked.)
      `echo 3 > ${usb}/xrun_debug`,
      `${aplay('Audio', 256, 6, 'usb-inject.err')} & A=$!`,
      `for i in $(seq 50); do grep -q RUNNING ${usb}/sub0/status && break; sleep 0.2; done`,
      `grep -q RUNNING ${usb}/sub0/status && echo usb running; echo 1 > ${usb}/sub0/xrun_injection`,
      'wait $A',
      `echo 0 > ${usb}/xrun_debug`,
      `${aplay('I82801AAICH', 1024, 3, 'ac97.err')}; echo "ac97 aplay rc=$?"`,
      `node ${WAKEUP_PROBE} hw:CARD=Intel,DEV=0`,
      `node ${WAKEUP_PROBE} hw:CARD=Dummy,DEV=0`,
    ].join('\n');
    // The recipe of the dummy ground truth (platform-facts §5a): 10 ms irq-off sections at
    // period 256 / buffer 512, player and injector on CPU 0, preempt=full; the lab steers the
    // HDA's MSI to CPU 0 as well, so the period interrupt is the one held off. It ends when the
    // evidence is in (60 kernel XRUNs of the HDA PCM); the thresholds are those of the 20 s
    // run (265 dumps, 180 naming test_lockup, measured 2026-12-07).
    const session = innerXrunhuntArgv([
      'session',
      '--device',
      'hw:CARD=Intel,DEV=0',
      '--period',
      '256',
      '--periods',
      '2',
      '--cpu',
      '0',
      '--phases',
      'idle:20s',
      '--until-xruns',
      '60',
      '--json',
    ])
      .map(shellQuote)
      .join(' ');
    const r = await execInLab(
      [
        script,
        'dmesg > three-dmesg.txt',
        'touch "$XRUNHUNT_LAB_INJECT_GO"',
        'echo "== hda-lockup"',
        `${session}; echo "rc hda-lockup=$?"`,
      ].join('\n'),
      {
        labOptions: [
          ...['--card', 'usb', '--card', 'ac97', '--card', 'hda'],
          ...['--inject', 'lockup:10:irq', '--inject-paused', '--out', out, '--timeout', '9m'],
        ],
        timeoutMs: 560_000,
      },
    );
    return { out, r };
  })());

test(
  'lab session --card hda with lockup:10:irq injected: the top offender is the injected function',
  { skip, timeout: 600_000 },
  async () => {
    const { r } = await sharedGuest();
    assert.equal(r.code, 0, `lab exec failed:\n${r.stderr.slice(-3000)}`);
    const section = labSections(r.stdout).get('hda-lockup') ?? '';
    assert.match(section, /^rc hda-lockup=2$/m, `xruns were found:\n${section.slice(-2000)}`);
    assert.match(r.stderr, /card [\w+]*hda.*inject lockup 10 ms irq/);
    const start = section.indexOf('{');
    assert.ok(start >= 0, `a JSON report in the section; stderr:\n${r.stderr.slice(-3000)}`);
    const report = JSON.parse(section.slice(start, section.lastIndexOf('}') + 1)) as SessionReport;
    // snd-dummy and snd-aloop are cards 0 and 1 (loaded first): the HDA PCM is later.
    assert.match(report.kernelCapture.pcm ?? '', /^pcmC([2-9]|\d\d)D0p$/);
    const top = report.offenders[0];
    assert.ok(top, `an offender; conclusion: ${report.conclusion.join(' ')}`);
    const named = report.offenders
      .filter((o) => o.module === 'test_lockup')
      .reduce((n, o) => n + o.count, 0);
    const all = report.offenders.reduce((n, o) => n + o.count, 0);
    process.stderr.write(
      `# lab hda lockup:10:irq 256/512: ${named} of ${all} kernel-class dumps name test_lockup; top: ${report.offenders
        .slice(0, 3)
        .map((o) => `${o.function} [${o.module ?? ''}] ${o.count}`)
        .join(', ')}\n`,
    );
    // Margins: at least 10 XRUN dumps attributed (20 s of 10 ms sections every 60 ms, most of
    // which overrun a 10.7 ms buffer), the injected function first and at least 30 % of the
    // attributed dumps (the dummy card's measured floor; the rest are the busy cooldown).
    assert.ok(all >= 10, `expected at least 10 attributed dumps, got ${all}`);
    assert.equal(top.module, 'test_lockup', `top offender ${top.function} [${top.module}]`);
    assert.match(top.function ?? '', /^test_(un)?lock/);
    assert.ok(named / all >= 0.3, `only ${named} of ${all} name test_lockup`);
  },
);

test(
  'lab --card usb --card ac97 --card hda: the drivers bind, usb and ac97 play, a usb XRUN dump is captured, hda can run without period interrupts',
  { skip, timeout: 600_000 },
  async () => {
    const { out, r } = await sharedGuest();
    assert.equal(r.code, 0, `lab exec failed:\n${r.stderr.slice(-3000)}`);
    for (const id of ['Dummy', 'Loopback', 'Audio', 'I82801AAICH', 'Intel']) {
      assert.match(r.stdout, new RegExp(`\\[${id} *\\]`), `card ${id} in /proc/asound/cards`);
    }
    assert.match(r.stdout, /^usb aplay rc=0$/m);
    assert.match(r.stdout, /^usb running$/m);
    assert.match(r.stdout, /^ac97 aplay rc=0$/m);
    // Captured: the analyzer reads the forced XRUN (and any real ones) of the usb PCM.
    const a = await analyzeLog(join(out, 'three-dmesg.txt'));
    const usbCard = /\s(\d+) \[Audio\s*\]/.exec(r.stdout)?.[1];
    assert.ok(usbCard !== undefined, 'usb card number');
    const dmesg = readFileSync(join(out, 'three-dmesg.txt'), 'utf8');
    const headers = dmesg.split('\n').filter((l) => l.includes(`XRUN: pcmC${usbCard}D0p`));
    const xruns = a.events.filter((e) => e.kind === 'xrun').length;
    process.stderr.write(
      `# lab usb: ${headers.length} XRUN headers of pcmC${usbCard}D0p, ${xruns} xrun events analyzed\n`,
    );
    assert.ok(headers.length >= 1, `the injected XRUN, got ${headers.length}`);
    assert.ok(xruns >= 1, `analyze found ${xruns} xrun events`);
    // HDA supports no_period_wakeup (SNDRV_PCM_INFO_NO_PERIOD_WAKEUP), snd-dummy does not.
    const hda = wakeupLine(r.stdout, 'hw:CARD=Intel,DEV=0');
    assert.equal(hda.canDisablePeriodWakeup, 1);
    assert.equal(hda.wakeupOff, 0);
    assert.equal(hda.hwParams, 0);
    assert.ok(hda.written >= 48000, `played 1 s without period interrupts: ${hda.written} frames`);
    assert.equal(wakeupLine(r.stdout, 'hw:CARD=Dummy,DEV=0').canDisablePeriodWakeup, 0);
  },
);
