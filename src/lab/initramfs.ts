// The initramfs xrunhunt makes for Debian's kernel, whose 9p, virtio and ext4 are modules: which
// .ko files to load in which order (from the package's modules.dep, made by depmod), the file
// list (busybox, /init, the modules), and that list as a cpio "newc" archive the kernel unpacks.
// Pure: file contents in, bytes out.
import { posix } from 'node:path';
import { XrunhuntError } from '../errors.js';

/**
 * What the guest needs before its root exists (9p over virtio-pci), plus what init.sh uses right
 * after (the virtio serial ports, the ext4 scratch disk on virtio-blk; crc32c is ext4's soft
 * dependency, which modules.dep does not list). The sound modules are loaded later, from the
 * 9p root, by modprobe.
 */
export const INITRAMFS_MODULES: readonly string[] = [
  'virtio_pci',
  '9pnet_virtio',
  '9p',
  'virtio_console',
  'virtio_blk',
  'crc32c_generic',
  'ext4',
];

/** Busybox applets /init calls (lab/initramfs/init). */
export const INITRAMFS_APPLETS: readonly string[] = [
  'sh',
  'mount',
  'umount',
  'mkdir',
  'insmod',
  'switch_root',
  'sleep',
  'cat',
  'poweroff',
];

/** modules.dep: module path (relative to lib/modules/<release>) → its dependencies' paths. */
export type ModulesDep = ReadonlyMap<string, readonly string[]>;

// Parses modules.dep lines `kernel/fs/9p/9p.ko: kernel/fs/netfs/netfs.ko …`.
export function parseModulesDep(text: string): ModulesDep {
  const dep = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0 || line.startsWith('#')) continue;
    const deps = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .filter((d) => d.length > 0);
    dep.set(line.slice(0, colon).trim(), deps);
  }
  return dep;
}

// A module's name as modprobe compares it: basename without .ko[.xz|.zst], '-' as '_'.
export function moduleName(path: string): string {
  return posix
    .basename(path)
    .replace(/\.ko(\.\w+)?$/, '')
    .replace(/-/g, '_');
}

// The .ko paths to insmod, dependencies before their users, each once. A wanted module that is
// built in (in modules.builtin) is skipped; one that is neither is an error naming it.
export function moduleLoadOrder(
  dep: ModulesDep,
  wanted: readonly string[],
  builtin: readonly string[] = [],
  release = 'this kernel',
): string[] {
  const byName = new Map<string, string>();
  for (const path of dep.keys()) byName.set(moduleName(path), path);
  const builtinNames = new Set(builtin.map(moduleName));
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (path: string, chain: string[]) => {
    if (seen.has(path)) return;
    if (chain.includes(path)) {
      throw new XrunhuntError('format', `modules.dep has a cycle: ${[...chain, path].join(' → ')}`);
    }
    for (const d of dep.get(path) ?? []) visit(d, [...chain, path]);
    seen.add(path);
    order.push(path);
  };
  for (const name of wanted) {
    const path = byName.get(moduleName(name));
    if (path === undefined) {
      if (builtinNames.has(moduleName(name))) continue;
      throw new XrunhuntError(
        'not-found',
        `module ${name} is neither in modules.dep nor built into ${release}`,
        {
          hint: 'the lab needs it to reach its 9p root; use a kernel built with it (=y or =m)',
        },
      );
    }
    visit(path, []);
  }
  return order;
}

/** One member of the archive. */
export type InitramfsEntry =
  | { kind: 'dir'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; data: Uint8Array }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'char'; path: string; mode: number; major: number; minor: number };

export interface InitramfsContent {
  release: string;
  /** A static busybox (every applet is a symlink to it). */
  busybox: Uint8Array;
  /** lab/initramfs/init. */
  initScript: string;
  /** The modules in load order: path relative to lib/modules/<release>, contents. */
  modules: readonly { path: string; data: Uint8Array }[];
}

/** Where /init reads the insmod order (one path relative to lib/modules/<release> a line). */
export const INITRAMFS_LOAD_LIST = 'etc/xrunhunt-modules';

// The archive's members: folders before their contents, /init, busybox and its applets, the
// modules and their load list, /dev/console (the kernel opens it for /init).
export function initramfsEntries(c: InitramfsContent): InitramfsEntry[] {
  const dirs = new Set<string>(['bin', 'dev', 'proc', 'sys', 'newroot', 'etc']);
  const modBase = `lib/modules/${c.release}`;
  for (const m of c.modules) {
    let d = posix.dirname(`${modBase}/${m.path}`);
    while (d !== '.' && d !== '') {
      dirs.add(d);
      d = posix.dirname(d);
    }
  }
  const entries: InitramfsEntry[] = [...dirs]
    .sort()
    .map((path) => ({ kind: 'dir', path, mode: 0o755 }) as const);
  const enc = new TextEncoder();
  entries.push(
    { kind: 'char', path: 'dev/console', mode: 0o600, major: 5, minor: 1 },
    { kind: 'file', path: 'init', mode: 0o755, data: enc.encode(c.initScript) },
    { kind: 'file', path: 'bin/busybox', mode: 0o755, data: c.busybox },
    ...INITRAMFS_APPLETS.map(
      (a) => ({ kind: 'symlink', path: `bin/${a}`, target: 'busybox' }) as const,
    ),
    {
      kind: 'file',
      path: INITRAMFS_LOAD_LIST,
      mode: 0o644,
      data: enc.encode(c.modules.map((m) => `${m.path}\n`).join('')),
    },
    ...c.modules.map(
      (m) => ({ kind: 'file', path: `${modBase}/${m.path}`, mode: 0o644, data: m.data }) as const,
    ),
  );
  return entries;
}

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFCHR = 0o020000;

const pad4 = (n: number) => (4 - (n % 4)) % 4;

// Encodes members as a cpio "newc" archive (what the kernel's initramfs unpacker reads),
// ending with the TRAILER!!! record.
export function encodeCpioNewc(entries: readonly InitramfsEntry[], mtime = 0): Uint8Array {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const push = (b: Uint8Array) => {
    chunks.push(b);
    total += b.length;
    const p = pad4(b.length);
    if (p) {
      chunks.push(new Uint8Array(p));
      total += p;
    }
  };
  const record = (
    ino: number,
    mode: number,
    name: string,
    data: Uint8Array,
    rdev: [number, number] = [0, 0],
    nlink = 1,
  ) => {
    const nameBytes = enc.encode(`${name}\0`);
    const fields = [
      ino,
      mode,
      0,
      0,
      nlink,
      mtime,
      data.length,
      0,
      0,
      rdev[0],
      rdev[1],
      nameBytes.length,
      0,
    ];
    const header = enc.encode(
      `070701${fields.map((f) => f.toString(16).padStart(8, '0')).join('')}`,
    );
    // The name is padded so that header + name is a multiple of 4 (the header is 110 bytes).
    const head = new Uint8Array(header.length + nameBytes.length);
    head.set(header, 0);
    head.set(nameBytes, header.length);
    push(head);
    if (data.length) push(data);
  };
  let ino = 1;
  for (const e of entries) {
    if (e.kind === 'dir') record(ino++, S_IFDIR | e.mode, e.path, new Uint8Array(), [0, 0], 2);
    else if (e.kind === 'file') record(ino++, S_IFREG | e.mode, e.path, e.data);
    else if (e.kind === 'symlink') record(ino++, S_IFLNK | 0o777, e.path, enc.encode(e.target));
    else record(ino++, S_IFCHR | e.mode, e.path, new Uint8Array(), [e.major, e.minor]);
  }
  record(0, 0, 'TRAILER!!!', new Uint8Array());
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}
