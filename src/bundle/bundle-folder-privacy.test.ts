// The whole promise of the bundle folder: after scrubBundleFolder, no identifier of any
// class survives in any file of it. The folder is written by the real writers (the session's
// writeBundleFolder and event log, the bundle writer, the HTML escaper), the scrubber is
// built by the real gatherScrubKnown from a copied /proc, /sys, /etc, /dev and /home tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdtempSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';
import { readBundle } from './read.js';
import { createScrubber } from './scrub.js';
import { gatherScrubKnown, type ScrubKnownRoots } from './scrub-known.js';
import { scrubBundleFolder } from './scrub-folder.js';
import { escapeHtml } from '../report-html/escape.js';
import { openBundleEventLog, writeBundleFolder } from '../session/session-bundle.js';
import { parseEventLog } from '../session/event-log.js';
import { analyzeText } from '../analysis/analyzer.js';

const logDir = fileURLToPath(new URL('../../test/fixtures/kernel-logs/', import.meta.url));

// One value per identifier class; each must be gone from every file afterwards.
const SECRETS = {
  user: 'alice',
  fqdn: 'studio-pc.example.org',
  shortHost: 'studio-pc',
  domain: 'example.org',
  ipv4: '192.168.1.20',
  ipv4Gateway: '192.168.1.1',
  ipv6: 'fe80::1c2b:3aff:fe4d:5e6f',
  mac: '00:1b:21:3a:4f:9c',
  macDash: '00-1b-21-3a-4f-9d',
  macCisco: 'aabb.ccdd.eeff',
  usbSerial: 'Y8ABCDEF1234',
  nvmeSerial: 'S5RTNC0T104269',
  dmiSerial: 'PF1XYZ42',
  dmiUuid: '4c4c4544-0042-3510-8051-b4c04f4e5a31',
  sdCid: '035344534433324780a1b2c3d40139a1',
  fsUuid: '3f2a8c1e-5b6d-4e7f-9a0b-1c2d3e4f5a6b',
  partUuid: 'abcd1234-02',
  machineId: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  email: 'alice.smith@example.com',
  mmcAddress: 'address e624',
  mmcBlk: 'mmc0:e624',
} as const;

/** Text holding every class, in the shapes the kernel and tools print them. */
function identifyingText(): string {
  const s = SECRETS;
  return [
    `Kernel command line: BOOT_IMAGE=/vmlinuz root=UUID=${s.fsUuid} resume=PARTUUID=${s.partUuid} ip=${s.ipv4}::${s.ipv4Gateway}:255.255.255.0:${s.shortHost}:eth0:off`,
    `DMI: Dell Inc. XPS 13 9370/0F6P3V, BIOS 1.21.0 07/06/2022`,
    `usb 1-1: SerialNumber: ${s.usbSerial}`,
    `nvme nvme0: new ctrl: NQN "nqn.2014.08.org.nvmexpress:144d144d${s.nvmeSerial}      Samsung SSD 970 EVO Plus 1TB"`,
    `mmc0: new high speed SDHC card at address e624`,
    `mmcblk0: mmc0:e624 SU08G 7.40 GiB`,
    `dmi product serial ${s.dmiSerial} uuid ${s.dmiUuid} cid ${s.sdCid} machine-id ${s.machineId}`,
    `EXT4-fs (nvme0n1p2): mounted filesystem ${s.fsUuid} r/w with ordered data mode`,
    `e1000e 0000:00:19.0 eth0: ${s.mac} wlan0: ${s.macDash} switch ${s.macCisco}`,
    `IPv6 peer ${s.ipv6} from ${s.ipv4}`,
    `CPU: 1 PID: 646 Comm: ardour-${s.user} Not tainted 6.1.192 #1`,
    `mail ${s.email} from /home/${s.user}/.config/ardour`,
    `Dec  1 10:00:00 ${s.shortHost} kernel: snd_hda_intel 0000:00:1f.3: azx_get_response timeout`,
    `search ${s.domain}; peer ${s.fqdn}`,
  ].join('\n');
}

function fakeTree(root: string): ScrubKnownRoots {
  const w = (rel: string, text: string): void => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  w('proc/sys/kernel/hostname', 'studio-pc\n');
  w('proc/sys/kernel/domainname', '(none)\n');
  w(
    'etc/passwd',
    'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n',
  );
  w('etc/machine-id', `${SECRETS.machineId}\n`);
  w('sys/bus/usb/devices/1-1/serial', `${SECRETS.usbSerial}\n`);
  w('sys/class/nvme/nvme0/serial', `${SECRETS.nvmeSerial}      \n`);
  w('sys/bus/mmc/devices/mmc0:e624/cid', `${SECRETS.sdCid}\n`);
  w('sys/class/dmi/id/product_serial', `${SECRETS.dmiSerial}\n`);
  w('sys/class/dmi/id/product_uuid', `${SECRETS.dmiUuid}\n`);
  w(`dev/disk/by-uuid/${SECRETS.fsUuid}`, '');
  w(`dev/disk/by-partuuid/${SECRETS.partUuid}`, '');
  mkdirSync(join(root, 'home/alice'), { recursive: true });
  return {
    procRoot: join(root, 'proc'),
    sysRoot: join(root, 'sys'),
    etcRoot: join(root, 'etc'),
    devRoot: join(root, 'dev'),
    homeRoot: join(root, 'home'),
  };
}

function leaks(text: string): string[] {
  const lower = text.toLowerCase();
  return Object.entries(SECRETS)
    .filter(([, v]) => lower.includes(v.toLowerCase()))
    .map(([k]) => k);
}

function fileText(path: string): string {
  const bytes = readFileSync(path);
  return (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8');
}

test('no identifier of any class survives in any file of a scrubbed bundle folder', async () => {
  const base = mkdtempSync(join(tmpdir(), 'xrunhunt-folder-privacy-'));
  try {
    const dir = join(base, 'xrunhunt-20261201-101500');
    const text = identifyingText();
    const xrunDump = readFileSync(logDir + 'lab-6.1-x86_64-shapes-journalctl.txt', 'utf8');
    const kernelLog = text + '\n' + xrunDump;

    // events.ndjson, written live as a session does (one line per event), with a name hidden
    // behind a JSON escape and a last line cut short by a crash.
    const log = openBundleEventLog(dir);
    for (const line of text.split('\n')) log.append({ type: 'warning', timeMs: 1, message: line });
    log.append({
      type: 'warning',
      timeMs: 2,
      message: `two lines\n${SECRETS.user} at tab\t${SECRETS.user}`,
    });
    log.close();
    writeFileSync(
      join(dir, 'events.ndjson'),
      `{"type":"warning","timeMs":3,"message":"cut ${SECRETS.usbSerial} /home/${SECRETS.user}`,
      { flag: 'a' },
    );

    // bundle.json.gz, kernel.log, report.txt through the session's own writer, unscrubbed.
    const bundle = validateBundle(fixtureJson('session-ext4-writeback.json'));
    bundle.scrubbed = false;
    bundle.warnings.push(...text.split('\n'));
    bundle.host.cards[0]!.name = `Scarlett 2i2 USB ${SECRETS.usbSerial}`;
    bundle.params!.device = `plug:/home/${SECRETS.user}/.asoundrc`;
    await writeBundleFolder({ dir, bundle, kernelLog, reportText: text + '\n', scrub: null });

    // The other kinds a folder may hold: an HTML report, a gzipped log, JSON, a file with no
    // extension, a binary file, and a link to a file outside the folder.
    const html = `<!doctype html><pre>${escapeHtml(text)}</pre><script type="application/json">${JSON.stringify({ text })}</script>`;
    writeFileSync(join(dir, 'report.html'), html);
    writeFileSync(join(dir, 'kernel.log.1.gz'), gzipSync(kernelLog));
    writeFileSync(
      join(dir, 'report.json'),
      JSON.stringify({ lines: text.split('\n') }, null, 2) + '\n',
    );
    writeFileSync(join(dir, 'NOTES'), text);
    writeFileSync(join(dir, 'capture.bin'), Buffer.from([0, 1, 2, 0]));
    const outside = join(base, 'outside.txt');
    writeFileSync(outside, text);
    symlinkSync(outside, join(dir, 'link.txt'));

    // Every file holds every class before (the test would prove nothing otherwise).
    for (const name of [
      'events.ndjson',
      'bundle.json.gz',
      'kernel.log',
      'report.txt',
      'report.html',
      'kernel.log.1.gz',
      'report.json',
      'NOTES',
    ]) {
      assert.deepEqual(
        leaks(fileText(join(dir, name))).sort(),
        Object.keys(SECRETS).sort(),
        `${name} before`,
      );
    }

    const known = gatherScrubKnown(
      { SUDO_USER: SECRETS.user, HOME: '/root' },
      fakeTree(join(base, 'root')),
      { hostname: () => SECRETS.fqdn, username: () => 'root' },
    );
    const result = await scrubBundleFolder(dir, createScrubber(known));

    assert.deepEqual(result.failed, []);
    assert.deepEqual(result.scrubbed, [
      'NOTES',
      'bundle.json.gz',
      'events.ndjson',
      'kernel.log',
      'kernel.log.1.gz',
      'report.html',
      'report.json',
      'report.txt',
    ]);
    assert.deepEqual(
      result.skipped.map((s) => s.name),
      ['capture.bin', 'link.txt'],
    );
    for (const name of result.scrubbed) {
      assert.deepEqual(leaks(fileText(join(dir, name))), [], `${name} after`);
    }
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.endsWith('.tmp')),
      [],
      'no temp files left',
    );
    assert.equal(
      readFileSync(outside, 'utf8'),
      text,
      'the link target outside the folder is untouched',
    );

    // Still what readers expect: a valid scrubbed bundle, a parseable event log with its
    // truncated tail, a kernel log that analyses to the same XRUN events.
    const b = await readBundle(join(dir, 'bundle.json.gz'));
    assert.equal(b.scrubbed, true);
    assert.equal(b.host.cards[0]!.name, 'Scarlett 2i2 USB <serial>');
    const ev = parseEventLog(readFileSync(join(dir, 'events.ndjson'), 'utf8'));
    assert.equal(ev.events.length, text.split('\n').length + 1);
    assert.equal(ev.truncatedTail, true);
    assert.deepEqual(ev.badLines, []);
    const scrubbedLog = readFileSync(join(dir, 'kernel.log'), 'utf8');
    const frames = (t: string): unknown[] =>
      analyzeText(t).events.map((e) => [e.offender, e.frames]);
    assert.deepEqual(frames(scrubbedLog), frames(kernelLog));
    assert.ok(frames(kernelLog).length > 0);
    assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /ardour-&lt;user&gt;/);
    assert.equal(statSync(join(dir, 'kernel.log')).mode & 0o777, 0o644);

    // Idempotent: a second pass (a retried close) changes no byte.
    const bytes = (): Buffer[] => result.scrubbed.map((n) => readFileSync(join(dir, n)));
    const first = bytes();
    await scrubBundleFolder(dir, createScrubber(known));
    assert.deepEqual(bytes(), first);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
