import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hasCapSysNice,
  parseCapEff,
  parseDebugfsPreempt,
  parseEffectiveUid,
  parseInterrupts,
  parseRtprioLimit,
} from './proc-text-formats.js';

test('capabilities and uid from /proc/self/status', () => {
  const status =
    'Name:\tnode\nUid:\t1000\t0\t0\t0\nCapInh:\t0000000000000000\nCapEff:\t0000000000800000\n';
  assert.equal(parseEffectiveUid(status), 0);
  assert.equal(parseCapEff(status), '0000000000800000');
  assert.equal(hasCapSysNice('0000000000800000'), true); // 1 << 23
  assert.equal(hasCapSysNice('00000000007fffff'), false);
  assert.equal(hasCapSysNice('000001ffffffffff'), true);
  assert.equal(hasCapSysNice(undefined), false);
  assert.equal(hasCapSysNice('zz'), false);
  assert.equal(parseCapEff('garbage'), undefined);
});

test('rtprio limit from /proc/self/limits', () => {
  const limits =
    'Limit                     Soft Limit           Hard Limit           Units     \n' +
    'Max nice priority         0                    0                    \n' +
    'Max realtime priority     95                   95                   \n';
  assert.deepEqual(parseRtprioLimit(limits), { soft: '95', hard: '95' });
  assert.equal(parseRtprioLimit(''), undefined);
});

test('debugfs preempt switch', () => {
  assert.equal(parseDebugfsPreempt('none voluntary (full)\n'), 'full');
  assert.equal(parseDebugfsPreempt('(none) voluntary full lazy'), 'none');
  assert.equal(parseDebugfsPreempt('full'), undefined);
});

test('/proc/interrupts: counts, chip, handlers; shared lines; non-numeric rows skipped', () => {
  const text = [
    '           CPU0       CPU1       ',
    '  0:         35          0   IO-APIC   2-edge      timer',
    ' 16:         10          2   IO-APIC  16-fasteoi   ehci_hcd:usb1, snd_hda_intel:card1',
    ' 28:          0          0 PCI-MSIX-0000:00:01.0   0-edge      virtio0-config',
    ' 33:       1234       5678   PCI-MSI 512000-edge      snd_hda_intel:card0',
    ' 40:          0          0   IO-APIC  40-edge',
    'NMI:          0          0   Non-maskable interrupts',
    'garbage line',
    '',
  ].join('\n');
  const lines = parseInterrupts(text);
  assert.deepEqual(
    lines.map((l) => [l.irq, l.total, l.actions]),
    [
      [0, 35, ['timer']],
      [16, 12, ['ehci_hcd:usb1', 'snd_hda_intel:card1']],
      [28, 0, ['virtio0-config']],
      [33, 6912, ['snd_hda_intel:card0']],
      [40, 0, []],
    ],
  );
  assert.equal(lines[3]!.chip, 'PCI-MSI 512000-edge');
  assert.deepEqual(parseInterrupts('not interrupts at all'), []);
});
