// What the scrubber is told (thin shell): the names and exact values that identify this
// machine and its people, read before a bundle folder is scrubbed. Generic patterns cannot
// know that "Y8ABCDEF" is this interface's serial or that "studio" is the short form of
// this host, so the values are collected here, from where the kernel keeps them:
//   host names  os.hostname(), /proc/sys/kernel/{hostname,domainname}, /etc/hostname, /etc/mailname
//   users       the login user, SUDO_USER/USER/LOGNAME (sessions run under sudo as root),
//               the folders in /home, /etc/passwd accounts with uid 1000–59999
//   identifiers USB, NVMe, MMC and DMI serials and UUIDs in /sys, SD card CIDs,
//               /etc/machine-id, filesystem and partition UUIDs in /dev/disk/by-*uuid,
//               disk serials in /dev/disk/by-id names
// Every read is bounded and may fail (a container, a copied tree): what cannot be read is
// simply not known, and the generic rules still apply.
import * as nodeFs from 'node:fs';
import * as nodeOs from 'node:os';
import { basename, join } from 'node:path';
import type { ScrubKnown } from './scrub-names.js';

/** Where the shell reads from; tests point these at a copied tree. */
export interface ScrubKnownRoots {
  procRoot: string;
  sysRoot: string;
  etcRoot: string;
  devRoot: string;
  homeRoot: string;
}

/** The real machine's trees (what a session reads unless told otherwise). */
export const DEFAULT_SCRUB_ROOTS: ScrubKnownRoots = {
  procRoot: '/proc',
  sysRoot: '/sys',
  etcRoot: '/etc',
  devRoot: '/dev',
  homeRoot: '/home',
};

/** The host calls the shell makes (injectable so tests do not depend on the machine). */
export interface ScrubKnownHost {
  hostname(): string;
  username(): string;
}

const realHost: ScrubKnownHost = {
  hostname: () => nodeOs.hostname(),
  username: () => {
    try {
      return nodeOs.userInfo().username;
    } catch {
      return '';
    }
  },
};

// Attribute files are tiny; anything longer is not a name.
const MAX_VALUE_CHARS = 4096;
// Cap on directory entries read per folder (a /home with thousands of users is fine; a
// /dev/disk/by-uuid never has this many).
const MAX_ENTRIES = 10_000;

type Fs = Pick<typeof nodeFs, 'readFileSync' | 'readdirSync'>;

function readSmall(fs: Fs, path: string): string | null {
  try {
    const text = fs.readFileSync(path, 'utf8');
    const v = text.slice(0, MAX_VALUE_CHARS).trim();
    return v === '' ? null : v;
  } catch {
    return null;
  }
}

function list(fs: Fs, dir: string): string[] {
  try {
    return fs.readdirSync(dir).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
}

/** Login names of human accounts in a passwd file (pure): uid 1000–59999, real shells. */
export function humanAccounts(passwd: string): string[] {
  const out: string[] = [];
  for (const line of passwd.split('\n')) {
    const f = line.split(':');
    if (f.length < 7) continue;
    const uid = Number(f[2]);
    const shell = f[6] ?? '';
    if (uid >= 1000 && uid < 60000 && !/(?:nologin|false)$/.test(shell) && f[0]) out.push(f[0]);
  }
  return out;
}

/**
 * The serial in a /dev/disk/by-id name (pure): udev builds them as BUS-MODEL_SERIAL
 * (`ata-Samsung_SSD_860_EVO_500GB_S3Z1NB0K123456A-part1`) or from the WWN (`wwn-0x5002…`).
 */
export function serialInDiskId(name: string): string | null {
  // `-part1` is a partition, `-0:0` a USB/SCSI LUN.
  const base = name.replace(/-part\d+$/, '').replace(/-\d+:\d+$/, '');
  const wwn = /^(?:wwn|nvme-eui)[-.](?:0x)?([0-9a-f]{8,})$/i.exec(base);
  if (wwn) return wwn[1]!;
  const m = /^(?:ata|nvme|usb|scsi-[0-9a-z]+|mmc|memstick|ieee1394)-.*_([A-Za-z0-9.-]{6,})$/.exec(
    base,
  );
  return m ? m[1]! : null;
}

/**
 * Collects the host names, user names and exact identifiers to scrub, so that every caller
 * (session, watch, the bundle-folder scrub at close) constructs the scrubber the same way.
 */
export function gatherScrubKnown(
  env: NodeJS.ProcessEnv,
  rootsGiven: Partial<ScrubKnownRoots> = {},
  host: ScrubKnownHost = realHost,
  fs: Fs = nodeFs,
): ScrubKnown {
  // Sessions pass their --proc-root/--sys-root; the other roots stay the real ones.
  const roots: ScrubKnownRoots = { ...DEFAULT_SCRUB_ROOTS, ...rootsGiven };
  const hostnames: string[] = [];
  const push = (xs: string[], v: string | null | undefined): void => {
    if (v) xs.push(v);
  };
  let osHost = '';
  try {
    osHost = host.hostname();
  } catch {
    // unknown host name: the syslog-field rule still removes it from kernel logs
  }
  push(hostnames, osHost);
  const kernelHost = readSmall(fs, join(roots.procRoot, 'sys/kernel/hostname'));
  push(hostnames, kernelHost);
  push(hostnames, readSmall(fs, join(roots.etcRoot, 'hostname')));
  push(hostnames, readSmall(fs, join(roots.etcRoot, 'mailname')));
  const domain = readSmall(fs, join(roots.procRoot, 'sys/kernel/domainname'));
  if (domain && domain !== '(none)' && kernelHost) hostnames.push(`${kernelHost}.${domain}`);

  const users: string[] = [];
  push(users, host.username());
  for (const k of ['SUDO_USER', 'USER', 'LOGNAME', 'USERNAME']) push(users, env[k]);
  if (env['HOME']?.startsWith('/home/')) push(users, basename(env['HOME']));
  for (const name of list(fs, roots.homeRoot)) {
    if (!name.startsWith('.') && name !== 'lost+found') users.push(name);
  }
  const passwd = readSmall(fs, join(roots.etcRoot, 'passwd'));
  if (passwd) users.push(...humanAccounts(passwd));

  const identifiers: string[] = [];
  const sys = roots.sysRoot;
  for (const dev of list(fs, join(sys, 'bus/usb/devices'))) {
    push(identifiers, readSmall(fs, join(sys, 'bus/usb/devices', dev, 'serial')));
  }
  for (const dev of list(fs, join(sys, 'class/nvme'))) {
    push(identifiers, readSmall(fs, join(sys, 'class/nvme', dev, 'serial')));
  }
  for (const dev of list(fs, join(sys, 'bus/mmc/devices'))) {
    for (const attr of ['cid', 'serial']) {
      push(identifiers, readSmall(fs, join(sys, 'bus/mmc/devices', dev, attr)));
    }
  }
  for (const attr of ['product_serial', 'board_serial', 'chassis_serial', 'product_uuid']) {
    push(identifiers, readSmall(fs, join(sys, 'class/dmi/id', attr)));
  }
  push(identifiers, readSmall(fs, join(roots.etcRoot, 'machine-id')));
  for (const by of ['by-uuid', 'by-partuuid']) {
    identifiers.push(...list(fs, join(roots.devRoot, 'disk', by)));
  }
  for (const name of list(fs, join(roots.devRoot, 'disk/by-id'))) {
    const serial = serialInDiskId(name);
    if (serial) identifiers.push(serial);
  }
  return { hostnames, users, identifiers };
}
