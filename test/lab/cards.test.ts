// Emulated sound hardware in the lab (`lab … --card hda|usb|ac97`) on the default kernel
// (debian-debug: the drivers are our xrun_debug modules, loaded at boot): the real snd-hda-intel, snd-usb-audio and snd-intel8x0 drivers
// behind QEMU's ich9-intel-hda, usb-audio and AC97. Serial (each test boots a guest, TCG).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execInLab, labSkip } from '../helpers/lab.js';
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

test(
  'lab session --card hda with lockup:10:irq injected: the top offender is the injected function',
  { skip, timeout: 420_000 },
  async () => {
    const out = join(work, 'hda-lockup');
    // The recipe of the dummy ground truth (platform-facts §5a): 10 ms irq-off sections at
    // period 256 / buffer 512, player and injector on CPU 0, preempt=full; the lab steers the
    // HDA's MSI to CPU 0 as well, so the period interrupt is the one held off.
    const r = await runCli(
      [
        'lab',
        'session',
        '--card',
        'hda',
        '--inject',
        'lockup:10:irq',
        '--out',
        out,
        '--timeout',
        '6m',
        '--',
        '--period',
        '256',
        '--periods',
        '2',
        '--cpu',
        '0',
        '--phases',
        'idle:20s',
        // Ends when the evidence is in (60 kernel XRUNs of the HDA PCM); the thresholds below
        // are those of the 20 s run (265 dumps, 180 naming test_lockup, measured 2026-12-07).
        '--until-xruns',
        '60',
        '--json',
      ],
      { timeoutMs: 400_000 },
    );
    assert.match(r.stderr, /card hda/);
    const start = r.stdout.indexOf('{');
    assert.ok(start >= 0, `a JSON report on stdout; stderr:\n${r.stderr.slice(-3000)}`);
    const report = JSON.parse(r.stdout.slice(start)) as SessionReport;
    assert.equal(r.code, 2, 'xruns were found');
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
  { skip, timeout: 420_000 },
  async () => {
    const out = join(work, 'three');
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
    const r = await execInLab(script, {
      labOptions: ['--card', 'usb', '--card', 'ac97', '--card', 'hda', '--out', out],
      timeoutMs: 400_000,
    });
    assert.equal(r.code, 0, `lab exec failed:\n${r.stderr.slice(-3000)}`);
    for (const id of ['Dummy', 'Loopback', 'Audio', 'I82801AAICH', 'Intel']) {
      assert.match(r.stdout, new RegExp(`\\[${id} *\\]`), `card ${id} in /proc/asound/cards`);
    }
    assert.match(r.stdout, /^usb aplay rc=0$/m);
    assert.match(r.stdout, /^usb running$/m);
    assert.match(r.stdout, /^ac97 aplay rc=0$/m);
    // Captured: the analyzer reads the forced XRUN (and any real ones) of the usb PCM.
    const a = await analyzeLog(join(out, 'dmesg.txt'));
    const usbCard = /\s(\d+) \[Audio\s*\]/.exec(r.stdout)?.[1];
    assert.ok(usbCard !== undefined, 'usb card number');
    const dmesg = readFileSync(join(out, 'dmesg.txt'), 'utf8');
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
