import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fixtureJson } from './test-fixtures.js';
import { createScrubber, scrubBundle, scrubText } from './scrub.js';
import { validateBundle } from './validate.js';
import { analyzeText } from '../analysis/analyzer.js';

const known = { hostnames: ['studio-pc', 'studio-pc.lan'], users: ['alice'] };
const logDir = fileURLToPath(new URL('../../test/fixtures/kernel-logs/', import.meta.url));

test('home paths, root home, addresses and known names become placeholders', () => {
  assert.equal(scrubText('log at /home/alice/x.log', known), 'log at /home/<user>/x.log');
  assert.equal(scrubText('cwd /root/work', known), 'cwd /home/<user>/work');
  assert.equal(
    scrubText('peer 192.168.1.20:4713 via fe80::1c2b:3aff:fe4d:5e6f', known),
    'peer <ip>:4713 via <ip>',
  );
  assert.equal(scrubText('mac 00:1b:21:3a:4f:9c up', known), 'mac <mac> up');
  assert.equal(
    scrubText('studio-pc.lan and studio-pc said hi to alice', known),
    '<host> and <host> said hi to <user>',
  );
  assert.equal(scrubText('build host builder01.corp.example.com'), 'build host <host>');
});

test('kernel text that merely looks similar is left alone', () => {
  const s =
    'at 12:34:56 snd_hda_intel 0000:00:1f.3: azx_interrupt [snd_hda_codec] 6.1.0-28-amd64 /proc/asound/card0 /usr/lib/malice-tools';
  // "alice" glued into a longer word, PCI addresses, times and versions must survive.
  assert.equal(scrubText(s, { hostnames: [], users: ['alice'] }), s);
  assert.equal(scrubText('rootfs mounted on /rooted'), 'rootfs mounted on /rooted');
});

// Finding 8: serial numbers, DMI/BIOS ids, SD card CIDs and filesystem UUIDs.
test('USB serial numbers go; the USB string-descriptor index and serial drivers stay', () => {
  assert.equal(
    scrubText('usb 1-1.2: SerialNumber: 0123456789AB'),
    'usb 1-1.2: SerialNumber: <serial>',
  );
  const rootHub = 'usb usb1: SerialNumber: 0000:00:14.0';
  assert.equal(
    scrubText(rootHub, { hostnames: [], users: [], identifiers: ['0000:00:14.0'] }),
    rootHub,
  );
  const index = 'usb 1-1: New USB device strings: Mfr=1, Product=2, SerialNumber=3';
  assert.equal(scrubText(index), index);
  const driver = 'Serial: 8250/16550 driver, 4 ports, IRQ sharing enabled';
  assert.equal(scrubText(driver), driver);
  assert.equal(scrubText('serial console enabled'), 'serial console enabled');
  assert.equal(
    scrubText('  iSerial                 3 Y8ABCDEF1234'),
    '  iSerial                 3 <serial>',
  );
  assert.equal(scrubText('sn        : S5RTNC0T104269'), 'sn        : <serial>');
  assert.equal(scrubText('Scarlett 2i2 USB S/N Y8ABCDEF1234'), 'Scarlett 2i2 USB S/N <serial>');
});

test('NVMe serials: in the NQN the kernel makes up, and known serials anywhere', () => {
  assert.equal(
    scrubText(
      'nvme nvme0: new ctrl: NQN "nqn.2014.08.org.nvmexpress:144d144dS5RTNC0T104269      Samsung SSD 970 EVO Plus 1TB"',
    ),
    'nvme nvme0: new ctrl: NQN "nqn.2014.08.org.nvmexpress:144d144d<serial>Samsung SSD 970 EVO Plus 1TB"',
  );
  const ids = { hostnames: [], users: [], identifiers: ['S5RTNC0T104269', 'Y8ABCDEF'] };
  assert.equal(
    scrubText('card "USB Audio Y8ABCDEF" disk S5RTNC0T104269 glued 144dS5RTNC0T104269X', ids),
    'card "USB Audio <serial>" disk <serial> glued 144d<serial>X',
  );
  // Filler values are never treated as identifiers (they would blank common words).
  const filler = {
    hostnames: [],
    users: [],
    identifiers: ['Default string', '0', '00000000', 'None'],
  };
  assert.equal(scrubText('Default string 00000000 None', filler), 'Default string 00000000 None');
});

test('SD/MMC: the relative card address and a CID go, the product name stays', () => {
  assert.equal(
    scrubText('mmc0: new ultra high speed SDR104 SDXC card at address aaaa'),
    'mmc0: new ultra high speed SDR104 SDXC card at address <id>',
  );
  assert.equal(scrubText('mmcblk0: mmc0:aaaa SD64G 59.5 GiB'), 'mmcblk0: mmc0:<id> SD64G 59.5 GiB');
  assert.equal(scrubText('cid 035344534433324780a1b2c3d40139a1'), 'cid <id>');
  assert.equal(scrubText('_MACHINE_ID=0f1e2d3c4b5a69788796a5b4c3d2e1f0'), '_MACHINE_ID=<id>');
});

test('filesystem UUIDs and labels on the kernel command line and in kernel messages', () => {
  assert.equal(
    scrubText(
      'Kernel command line: BOOT_IMAGE=/vmlinuz root=UUID=3f2a8c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b ro resume=PARTUUID=abcd1234-02 usr=PARTUUID=0FC63DAF-8483-4772-8E79-3D69D8477DE4 rd.luks.uuid=luks-3f2a8c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b root=LABEL=alice-root quiet',
    ),
    'Kernel command line: BOOT_IMAGE=/vmlinuz root=UUID=<uuid> ro resume=PARTUUID=<uuid> usr=PARTUUID=<uuid> rd.luks.uuid=luks-<uuid> root=LABEL=<label> quiet',
  );
  assert.equal(scrubText('UUID=1234-ABCD /boot/efi vfat'), 'UUID=<uuid> /boot/efi vfat');
  assert.equal(
    scrubText('EXT4-fs (nvme0n1p2): mounted filesystem 3f2a8c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b r/w'),
    'EXT4-fs (nvme0n1p2): mounted filesystem <uuid> r/w',
  );
});

test('DMI / Hardware name: the model and firmware version stay (fleet grouping)', () => {
  // Decision: vendor, product, board and BIOS version/date are the same on every unit of a
  // model — a kernel developer needs them (firmware SMIs cause dropouts); per-unit ids
  // (serials, UUIDs) are not printed there and are caught by the rules above.
  const dmi = 'DMI: LENOVO 20L5CTO1WW/20L5CTO1WW, BIOS N24ET56W (1.31 ) 02/19/2020';
  assert.equal(scrubText(dmi), dmi);
  const hw = 'Hardware name: Acer Nitro AN515-43/Octavia_PKS, BIOS V1.08 12/24/2019';
  assert.equal(scrubText(hw), hw);
});

// Finding 10: partial leaks.
test('the ip= boot argument loses every address and its host name, not part of one', () => {
  assert.equal(
    scrubText(
      'ip=192.168.1.20::192.168.1.1:255.255.255.0:studio:eth0:off nfsroot=192.168.1.1:/srv',
    ),
    'ip=<ip>::<ip>:<ip>:<host>:eth0:off nfsroot=<ip>:/srv',
  );
  assert.equal(scrubText('ip=dhcp'), 'ip=dhcp');
  assert.equal(scrubText('systemd.hostname=studio7 quiet'), 'systemd.hostname=<host> quiet');
});

test('MAC addresses in all three notations, and joined MAC= fields, go whole', () => {
  assert.equal(
    scrubText('a 00:1b:21:3a:4f:9c b 00-1B-21-3A-4F-9C c aabb.ccdd.eeff d 0011.2233.4455.'),
    'a <mac> b <mac> c <mac> d <mac>.',
  );
  assert.equal(
    scrubText('IN=eth0 MAC=00:1b:21:3a:4f:9c:00:11:22:33:44:55:08:00 SRC=10.0.0.7'),
    'IN=eth0 MAC=<mac> SRC=<ip>',
  );
});

test('IPv4 and IPv6 in every form; kernel addresses, offsets and times stay', () => {
  assert.equal(
    scrubText('::ffff:192.168.0.1 and 2001:db8::1. and fd00::1'),
    '<ip> and <ip>. and <ip>',
  );
  // The same on every machine: any, loopback, broadcast, netmasks, the nil UUID.
  const generic =
    'listen 0.0.0.0:2024 [::]:22 ::1 127.0.0.1 mask 255.255.255.0 fs 00000000-0000-0000-0000-000000000000';
  assert.equal(scrubText(generic), generic);
  assert.equal(scrubText('2001:0db8:0000:0000:0000:ff00:0042:8329'), '<ip>');
  const kernel =
    '[<ffffffff81000000>] RIP: 0010:_raw_spin_unlock_irq+0x15/0x30 RSP: 0018:ffffb5a3c05b7c58 at 12:34:56.789 pci 0000:00:1f.3 fw 36.ca7b901d.0 BIOS 1.16.2-debian-1.16.2-1';
  assert.equal(scrubText(kernel), kernel);
});

test('a user name inside a token goes; glued into a word or a kernel symbol it stays', () => {
  const k = { hostnames: [], users: ['alice'] };
  assert.equal(scrubText('Comm: ardour-alice Not tainted', k), 'Comm: ardour-<user> Not tainted');
  assert.equal(scrubText('alice2 ALICE alice_', k), '<user>2 <user> alice_');
  assert.equal(scrubText('/srv/alice/take1.wav', k), '/srv/<user>/take1.wav');
  assert.equal(
    scrubText('malice aliceblue alice_probe+0x1a/0x30', k),
    'malice aliceblue alice_probe+0x1a/0x30',
  );
});

test('e-mail addresses go (with the user in them); systemd unit instances stay', () => {
  assert.equal(
    scrubText('from alice.smith@example.com and <bob+lists@mail.example.co.uk>', known),
    'from <email> and <<email>>',
  );
  const units = 'Started getty@tty1.service and user@1000.service';
  assert.equal(scrubText(units, known), units);
});

test('user names that kernel text uses as words are replaced only where they name a user', () => {
  // Rule: a login name of fewer than 3 characters, or one that is a word of kernel/audio
  // text (snd, irq, pcm, mark, jack, max…), is replaced in home folders, user=/USER=/
  // uid=N(NAME)/"user NAME" and e-mail addresses only — never in frames or module lists.
  const k = { hostnames: [], users: ['snd', 'irq', 'mark', 'pi'] };
  const frames =
    'snd_pcm_period_elapsed+0x22/0x40 [snd_pcm] Modules linked in: snd soundcore irq_bypass mark_buffer_dirty+0x1a/0x30 [snd]';
  assert.equal(scrubText(frames, k), frames);
  assert.equal(
    scrubText('session opened for user snd; USER=irq uid=1000(mark) /home/pi/x', k),
    'session opened for user <user>; USER=<user> uid=1000(<user>) /home/<user>/x',
  );
});

test('a known FQDN also removes its short host name and its domain', () => {
  const k = { hostnames: ['studio-pc.example.org'], users: [] };
  assert.equal(
    scrubText('Dec  1 10:00:00 studio-pc kernel: x; search example.org; studio-pc.example.org', k),
    'Dec  1 10:00:00 <host> kernel: x; search <host>; <host>',
  );
  // Distribution default host names identify nobody and are part of `uname -v`.
  const d = { hostnames: ['debian'], users: [] };
  assert.equal(
    scrubText('#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1', d),
    '#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1',
  );
});

test('the host field of syslog and journal lines goes even when the name is not known', () => {
  assert.equal(
    scrubText('Nov 29 18:02:13 labvm kernel: snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0'),
    'Nov 29 18:02:13 <host> kernel: snd_dummy snd_dummy.0: XRUN: pcmC0D0p:0',
  );
  assert.equal(
    scrubText('2026-12-01T10:15:05+0000 box7 kernel: x\n> led 11 18:24:21 box7 pulseaudio[912]: y'),
    '2026-12-01T10:15:05+0000 <host> kernel: x\n> led 11 18:24:21 <host> pulseaudio[912]: y',
  );
});

test('scrubbing is idempotent and line-local (files are scrubbed in batches of lines)', () => {
  const sc = createScrubber({
    hostnames: ['studio-pc.lan'],
    users: ['alice'],
    identifiers: ['Y8ABCDEF1234'],
  });
  const lines = [
    'usb 1-1: SerialNumber: Y8ABCDEF1234',
    'root=UUID=3f2a8c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b ip=10.0.0.2::10.0.0.1:255.0.0.0:studio-pc:eth0:off',
    'Dec  1 10:00:00 studio-pc kernel: Comm: ardour-alice at /home/alice with alice@example.com',
    'mmcblk0: mmc0:aaaa SD64G and aabb.ccdd.eeff and fe80::1',
    'serial',
    '1234ABCD',
    'nvme nvme0: new ctrl: NQN "nqn.2014.08.org.nvmexpress:144d144dS5RTNC0T104269      Samsung SSD 970 EVO"',
    'systemd[1]: Set hostname to <studio7>. _HOSTNAME=studio7 hostname=studio7',
    'mmc0: new SDHC card at address e624 cid 035344534433324780a1b2c3d40139a1 LABEL=alice',
    'enx001b213a4f9c 00-1B-21-3A-4F-9C alice.smith@example.com nas.local [::ffff:10.0.0.1]',
  ];
  const once = lines.map((l) => sc.text(l));
  assert.deepEqual(
    once.map((l) => sc.text(l)),
    once,
    'idempotent',
  );
  assert.equal(sc.text(lines.join('\n')), once.join('\n'), 'no rule crosses a line break');
  const html = lines.map((l) => sc.html(l));
  assert.deepEqual(
    html.map((l) => sc.html(l)),
    html,
    'idempotent in HTML too',
  );
});

test('values are scrubbed keys and all, without two keys overwriting each other', () => {
  const sc = createScrubber({ hostnames: [], users: ['alice', 'bob'] });
  assert.deepEqual(sc.value({ alice: 1, bob: [2, 'bob\nalice'], n: null, t: true }), {
    '<user>': 1,
    '<user>#2': [2, '<user>\n<user>'],
    n: null,
    t: true,
  });
  assert.deepEqual(sc.values(['alice', { x: 'two\nlines alice' }, 3]), [
    '<user>',
    { x: 'two\nlines <user>' },
    3,
  ]);
});

test('HTML gets entity-escaped placeholders', () => {
  const sc = createScrubber({ hostnames: [], users: ['alice'] });
  assert.equal(
    sc.html('<td>/home/alice at 10.0.0.7</td>'),
    '<td>/home/&lt;user&gt; at &lt;ip&gt;</td>',
  );
  assert.equal(sc.html(sc.html('<td>/home/alice</td>')), '<td>/home/&lt;user&gt;</td>');
});

test('JSON quoted in text or HTML cannot hide a name behind an escape', () => {
  const k = { hostnames: ['studio-pc'], users: ['alice'] };
  assert.equal(scrubText('{"m":"x\\nalice\\tstudio-pc"}', k), '{"m":"x\\n<user>\\t<host>"}');
  const sc = createScrubber(k);
  const json = JSON.stringify({ log: 'mmc0: new SDHC card at address e624\nComm: alice <b>' })
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e');
  const page = `<p>alice</p><script type="application/json">${json}</script><p>studio-pc</p>`;
  const out = sc.html(page);
  assert.ok(out.startsWith('<p>&lt;user&gt;</p><script type="application/json">'), out);
  assert.ok(out.endsWith('</script><p>&lt;host&gt;</p>'), out);
  const data = JSON.parse(/<script[^>]*>(.*)<\/script>/.exec(out)![1]!) as { log: string };
  assert.equal(data.log, 'mmc0: new SDHC card at address <id>\nComm: <user> <b>');
});

test('every kernel-log fixture analyses the same after scrubbing, with names that collide', () => {
  // User and host names that are also kernel words must not change one frame or offender.
  const k = {
    hostnames: ['mango', 'labvm.example.org'],
    users: ['snd', 'irq', 'mark', 'alice', 'pi'],
    identifiers: ['S5RTNC0T104269'],
  };
  const sc = createScrubber(k);
  for (const f of readdirSync(logDir).filter((x) => x.endsWith('.txt'))) {
    const text = readFileSync(logDir + f, 'utf8');
    const before = analyzeText(text).events.map((e) => [e.kind, e.pcm, e.offender, e.frames]);
    const after = analyzeText(sc.text(text)).events.map((e) => [
      e.kind,
      e.pcm,
      e.offender,
      e.frames,
    ]);
    assert.deepEqual(after, before, f);
  }
});

test('a real XRUN dump passes through byte for byte', () => {
  for (const f of [
    'lab-6.1-x86_64-io-load-ext4-writeback-kernel.txt',
    'lab-6.1-x86_64-shapes-dmesg.txt',
    '010-x86_64-5.11-syzbot-lockdep-recursive-in-snd_pcm_period_elapsed-IRQ-inline-frames.txt',
  ]) {
    const text = readFileSync(logDir + f, 'utf8');
    assert.equal(scrubText(text, { hostnames: ['labvm'], users: ['snd', 'alice'] }), text, f);
  }
});

test('scrubBundle rewrites strings everywhere but identifiers, and marks the bundle', () => {
  const b = validateBundle(fixtureJson('session-ext4-writeback.json'));
  b.scrubbed = false;
  b.params!.device = 'plug:/home/alice/.asoundrc-dev';
  b.warnings.push('kernel log from studio-pc (10.0.0.7) at /root/kern.log');
  b.host.cards[0]!.name = 'alice USB headset SerialNumber: 0123456789AB';
  const before = JSON.stringify(b);
  const s = scrubBundle(b, known);
  assert.equal(JSON.stringify(b), before, 'input not modified');
  assert.equal(s.scrubbed, true);
  assert.equal(s.params!.device, 'plug:/home/<user>/.asoundrc-dev');
  assert.equal(s.warnings.at(-1), 'kernel log from <host> (<ip>) at /home/<user>/kern.log');
  assert.equal(s.host.cards[0]!.name, '<user> USB headset SerialNumber: <serial>');
  assert.equal(s.machineId, b.machineId);
  assert.equal(s.createdAt, b.createdAt);
  assert.deepEqual(s.events, b.events);
  assert.doesNotThrow(() => validateBundle(s));
});

test('host names the kernel log learns from systemd and journal fields; names under private TLDs', () => {
  assert.equal(
    scrubText('systemd[1]: Set hostname to <studio7>. _HOSTNAME=studio7'),
    'systemd[1]: Set hostname to <<host>>. _HOSTNAME=<host>',
  );
  assert.equal(
    scrubText('nfs: server nas.local not responding; pcm_lib.c kernel.org'),
    'nfs: server <host> not responding; pcm_lib.c kernel.org',
  );
});

test('an interface name made from a MAC address loses the MAC', () => {
  assert.equal(
    scrubText('r8152 2-1:1.0 enx001b213a4f9c: renamed from eth0'),
    'r8152 2-1:1.0 enx<mac>: renamed from eth0',
  );
});

test('ordinary boot lines full of numbers, hex, colons and dots stay as they are', () => {
  const k = { hostnames: ['studio-pc'], users: ['alice', 'mark'], identifiers: ['Y8ABCDEF1234'] };
  const lines = [
    'IPv6: ADDRCONF(NETDEV_CHANGE): wlp2s0: link becomes ready',
    'usb 3-2: Product: Scarlett 2i2 USB',
    'sd 6:0:0:0: [sdb] 61440000 512-byte logical blocks: (31.5 GB/29.3 GiB)',
    'snd_hda_codec_hdmi hdaudioC0D2: HDMI: invalid ELD data byte 0',
    'ACPI: \\_SB_.PCI0.GP17.XHC1: PM: Power state change',
    'pci 0000:00:1f.3: [8086:a348] type 00 class 0x040380',
    'x86/fpu: xstate_offset[2]:  576, xstate_sizes[2]:  256',
    'smpboot: CPU0: AMD Ryzen 7 5800H with Radeon Graphics (family: 0x19, model: 0x50, stepping: 0x0)',
    'microcode: CPU0: patch_level=0x0a50000c',
    'DMI: ASUSTeK COMPUTER INC. ROG Strix G513QM_G513QM/G513QM, BIOS G513QM.318 03/25/2022',
    'Memory: 16255384K/16698636K available (16393K kernel code, 4467K rwdata, 10204K rodata)',
    'clocksource: tsc: mask: 0xffffffffffffffff max_cycles: 0x2e1a9a4b5e8, max_idle_ns: 440795263516 ns',
    'audit: type=1400 audit(1700000000.123:45): apparmor="DENIED" pid=1234 comm="firefox" fsuid=1000',
    'ata1.00: ATA-9: Samsung SSD 860 EVO 500GB, RVT03B6Q, max UDMA/133',
    'EXT4-fs (vda): mounted filesystem with ordered data mode. Quota mode: none.',
    'hrtimer: interrupt took 12345 ns',
  ];
  const sc = createScrubber(k);
  for (const l of lines) assert.equal(sc.text(l), l);
});
