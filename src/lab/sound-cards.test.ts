import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { XrunhuntError } from '../errors.js';
import { spawnSync } from 'node:child_process';
import {
  CARD_REGISTER_WAIT_S,
  cardRegisterWaitLines,
  defaultAlsaDevice,
  labDeviceArgs,
  findMissingCardDrivers,
  guestModules,
  parseSoundCards,
  soundCardQemuArgs,
} from './sound-cards.js';
import { checkCardDrivers } from './sound-cards-check.js';
import { fragmentPath } from './lab-paths.js';

test('--card: none means dummy, duplicates dropped, order kept, commas accepted', () => {
  assert.deepEqual(parseSoundCards([]), ['dummy']);
  assert.deepEqual(parseSoundCards(['hda', 'usb', 'HDA']), ['hda', 'usb']);
  assert.deepEqual(parseSoundCards(['usb,ac97']), ['usb', 'ac97']);
  assert.throws(
    () => parseSoundCards(['sb16']),
    (e: unknown) =>
      e instanceof XrunhuntError && /dummy, hda, usb, ac97, got "sb16"/.test(e.message),
  );
});

test('qemu args: one none audiodev per emulated card, devices bound to it; dummy adds nothing', () => {
  assert.deepEqual(soundCardQemuArgs(['dummy']), []);
  assert.deepEqual(soundCardQemuArgs(['hda']), [
    '-audiodev',
    'none,id=xrsnd-hda',
    '-device',
    'ich9-intel-hda,id=xrhda,msi=on',
    '-device',
    'hda-output,bus=xrhda.0,audiodev=xrsnd-hda',
  ]);
  assert.deepEqual(soundCardQemuArgs(['usb', 'ac97']), [
    '-audiodev',
    'none,id=xrsnd-usb',
    '-device',
    'qemu-xhci,id=xrxhci',
    '-device',
    'usb-audio,bus=xrxhci.0,audiodev=xrsnd-usb',
    '-audiodev',
    'none,id=xrsnd-ac97',
    '-device',
    'AC97,audiodev=xrsnd-ac97',
  ]);
});

test('default ALSA device is the first card by id; modules for a modular kernel', () => {
  assert.equal(defaultAlsaDevice(['dummy']), 'hw:CARD=Dummy,DEV=0');
  assert.equal(defaultAlsaDevice(['hda', 'dummy']), 'hw:CARD=Intel,DEV=0');
  assert.equal(defaultAlsaDevice(['usb']), 'hw:CARD=Audio,DEV=0');
  assert.equal(defaultAlsaDevice(['ac97']), 'hw:CARD=I82801AAICH,DEV=0');
  assert.deepEqual(guestModules(['dummy']), ['snd-dummy']);
  assert.deepEqual(guestModules(['hda', 'usb', 'hda']), [
    'snd-hda-intel',
    'snd-hda-codec-generic',
    'xhci-pci',
    'snd-usb-audio',
  ]);
  assert.deepEqual(guestModules(['ac97']), ['snd-intel8x0']);
});

test('missing drivers are named per card; =m counts as present', () => {
  const config = [
    'CONFIG_SND_DUMMY=y',
    'CONFIG_HIGH_RES_TIMERS=y',
    'CONFIG_SND_HDA_INTEL=m',
    'CONFIG_SND_HDA_GENERIC=m',
    'CONFIG_PCI_MSI=y',
    '# CONFIG_SND_USB_AUDIO is not set',
    'CONFIG_USB_XHCI_HCD=y',
  ].join('\n');
  assert.deepEqual(findMissingCardDrivers(['dummy', 'hda'], config), []);
  assert.deepEqual(findMissingCardDrivers(['usb', 'ac97'], config), [
    { card: 'usb', option: 'CONFIG_SND_USB_AUDIO', found: null },
    { card: 'usb', option: 'CONFIG_USB_XHCI_PCI', found: null },
    { card: 'ac97', option: 'CONFIG_SND_INTEL8X0', found: null },
  ]);
});

test('the kernel check reads the config beside the image and names the missing driver', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-cards-'));
  try {
    const image = join(dir, 'bzImage');
    writeFileSync(image, '');
    assert.deepEqual(checkCardDrivers(['usb'], image, undefined), { configSource: null });
    writeFileSync(join(dir, 'config'), 'CONFIG_SND_DUMMY=y\nCONFIG_HIGH_RES_TIMERS=y\n');
    assert.deepEqual(checkCardDrivers(['dummy'], image, undefined), {
      configSource: join(dir, 'config'),
    });
    assert.throws(
      () => checkCardDrivers(['dummy', 'ac97'], image, undefined),
      (e: unknown) =>
        e instanceof XrunhuntError &&
        e.code === 'unsupported' &&
        e.message.includes('--card ac97 needs CONFIG_SND_INTEL8X0 (not set)') &&
        (e.hint ?? '').includes(join(dir, 'config')),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the debug profile asks for every card driver built in', () => {
  const fragment = readFileSync(fragmentPath('debug'), 'utf8');
  const missing = findMissingCardDrivers(['dummy', 'hda', 'usb', 'ac97'], fragment);
  assert.deepEqual(missing, []);
  for (const option of ['CONFIG_SND_HDA_INTEL', 'CONFIG_SND_USB_AUDIO', 'CONFIG_SND_INTEL8X0']) {
    assert.ok(fragment.split('\n').includes(`${option}=y`), option);
  }
});

// Issue 30 item 8: `lab run -- session` played on "default" (dmix, a 2048-frame buffer) and
// the injected 20 ms lockup was never a kernel XRUN; playing commands get the card's hw device.
test('lab run gives playing commands without --device the first card hw device, and nothing else', () => {
  assert.deepEqual(labDeviceArgs(['session', '--phases', 'idle:20s'], ['hda']), [
    '--device',
    'hw:CARD=Intel,DEV=0',
  ]);
  assert.deepEqual(labDeviceArgs(['try', 'vm.swappiness=10'], []), [
    '--device',
    'hw:CARD=Dummy,DEV=0',
  ]);
  for (const args of [
    ['session', '--device', 'default'],
    ['session', '--device=plug:jack'],
    ['play', '-D', 'hw:0,0'],
    ['doctor'],
    ['analyze', 'x.log'],
    [],
  ])
    assert.deepEqual(labDeviceArgs(args, ['hda']), [], args.join(' '));
});

test('the guest waits for every card to register before the payload: one bounded wait per id, valid sh', () => {
  const lines = cardRegisterWaitLines(['dummy', 'hda', 'usb', 'hda']);
  assert.equal(lines.length, 3, 'Dummy, Intel, Audio; no duplicates');
  assert.deepEqual(cardRegisterWaitLines([]), [], 'no card asked, nothing waited for');
  for (const [i, id] of ['Dummy', 'Intel', 'Audio'].entries()) {
    assert.match(lines[i]!, new RegExp(`grep -q '\\\\\\[${id} \\*\\\\\\]' /proc/asound/cards`));
    assert.match(lines[i]!, new RegExp(`-gt ${CARD_REGISTER_WAIT_S * 10} \\]`));
  }
  const r = spawnSync('sh', ['-n'], { input: lines.join('\n'), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
