import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  gatherScrubKnown,
  humanAccounts,
  serialInDiskId,
  type ScrubKnownRoots,
} from './scrub-known.js';
import { createScrubber } from './scrub.js';

function tree(base: string, files: Record<string, string>): ScrubKnownRoots {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(base, rel, '..'), { recursive: true });
    writeFileSync(join(base, rel), text);
  }
  const r = (x: string): string => join(base, x);
  return {
    procRoot: r('proc'),
    sysRoot: r('sys'),
    etcRoot: r('etc'),
    devRoot: r('dev'),
    homeRoot: r('home'),
  };
}

test('human accounts are uid 1000–59999 with a login shell', () => {
  assert.deepEqual(
    humanAccounts(
      'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\nnobody:x:65534:65534::/:/usr/sbin/nologin\nsvc:x:1001:1001::/:/bin/false\nbob:x:1002:1002::/home/bob:/usr/bin/zsh\n',
    ),
    ['alice', 'bob'],
  );
});

test('the sudo user, home folders, host names and /sys identifiers are gathered', () => {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-scrub-known-'));
  try {
    const roots = tree(base, {
      'proc/sys/kernel/hostname': 'studio\n',
      'proc/sys/kernel/domainname': 'corp.example\n',
      'etc/hostname': 'studio\n',
      'etc/machine-id': '0f1e2d3c4b5a69788796a5b4c3d2e1f0\n',
      'etc/passwd': 'carol:x:1003:1003::/home/carol:/bin/bash\n',
      'home/dave/.keep': '',
      'home/lost+found/.keep': '',
      'sys/bus/usb/devices/1-1/serial': 'Y8ABCDEF1234\n',
      'sys/bus/usb/devices/usb1/serial': '0000:00:14.0\n',
      'sys/class/nvme/nvme0/serial': 'S5RTNC0T104269      \n',
      'sys/bus/mmc/devices/mmc0:aaaa/cid': '035344534433324780a1b2c3d40139a1\n',
      'sys/class/dmi/id/product_serial': 'To Be Filled By O.E.M.\n',
      'sys/class/dmi/id/product_uuid': '4c4c4544-0042-3510-8051-b4c04f4e5a31\n',
      'dev/disk/by-uuid/1234-ABCD': '',
    });
    const known = gatherScrubKnown({ SUDO_USER: 'alice', USER: 'root', HOME: '/root' }, roots, {
      hostname: () => 'studio.lan',
      username: () => 'root',
    });
    assert.deepEqual(known.hostnames, ['studio.lan', 'studio', 'studio', 'studio.corp.example']);
    assert.deepEqual(known.users.sort(), ['alice', 'carol', 'dave', 'root', 'root'].sort());
    assert.deepEqual(known.identifiers, [
      'Y8ABCDEF1234',
      '0000:00:14.0',
      'S5RTNC0T104269',
      '035344534433324780a1b2c3d40139a1',
      'To Be Filled By O.E.M.',
      '4c4c4544-0042-3510-8051-b4c04f4e5a31',
      '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
      '1234-ABCD',
    ]);
    // And the scrubber built from them removes each, but not the filler DMI value.
    const sc = createScrubber(known);
    assert.equal(
      sc.text(
        'alice carol dave studio.corp.example Y8ABCDEF1234 S5RTNC0T104269 To Be Filled By O.E.M.',
      ),
      '<user> <user> <user> <host> <serial> <serial> To Be Filled By O.E.M.',
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('an unreadable or missing tree yields what the host says, never an exception', () => {
  const missing = join(tmpdir(), 'xrunhunt-scrub-known-missing-does-not-exist');
  const roots = {
    procRoot: missing,
    sysRoot: missing,
    etcRoot: missing,
    devRoot: missing,
    homeRoot: missing,
  };
  const known = gatherScrubKnown({}, roots, {
    hostname: () => {
      throw new Error('no uts namespace');
    },
    username: () => '',
  });
  assert.deepEqual(known, { hostnames: [], users: [], identifiers: [] });
});

test('disk serials are read from /dev/disk/by-id names', () => {
  assert.equal(
    serialInDiskId('ata-Samsung_SSD_860_EVO_500GB_S3Z1NB0K123456A-part1'),
    'S3Z1NB0K123456A',
  );
  assert.equal(
    serialInDiskId('nvme-Samsung_SSD_970_EVO_Plus_1TB_S5RTNC0T104269'),
    'S5RTNC0T104269',
  );
  assert.equal(
    serialInDiskId('usb-SanDisk_Cruzer_Blade_4C530001230131103294-0:0'),
    '4C530001230131103294',
  );
  assert.equal(serialInDiskId('wwn-0x5002538e40a0b1c2'), '5002538e40a0b1c2');
  assert.equal(serialInDiskId('dm-name-cryptroot'), null);
});
