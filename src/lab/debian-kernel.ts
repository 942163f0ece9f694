// `lab … --kernel debian|debian-rt`: which Debian package is the kernel, what its release and
// headers are called, and where its unpacked files live in the lab cache (platform-facts §8).
// Pure: apt-cache output in, names and paths out.
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';

/** The reserved words of `--kernel` (anything else is a path to a bzImage). */
export const DEBIAN_KERNEL_NAMES = ['debian', 'debian-rt'] as const;
export type DebianKernelName = (typeof DEBIAN_KERNEL_NAMES)[number];

/** The metapackage that always depends on the current image of each flavour. */
export const DEBIAN_METAPACKAGES: Readonly<Record<DebianKernelName, string>> = {
  debian: 'linux-image-amd64',
  'debian-rt': 'linux-image-rt-amd64',
};

// Whether a --kernel value is one of the reserved Debian names rather than a path.
export function isDebianKernelName(value: string): value is DebianKernelName {
  return (DEBIAN_KERNEL_NAMES as readonly string[]).includes(value);
}

// The versioned image package the metapackage depends on, from `apt-cache depends META`
// (e.g. `  Depends: linux-image-6.1.0-57-amd64`).
export function imagePackageFromDepends(meta: string, dependsOutput: string): string {
  for (const line of dependsOutput.split('\n')) {
    const m = /^\s*Depends:\s*(linux-image-\d\S*)\s*$/.exec(line);
    if (m) return m[1]!;
  }
  throw new XrunhuntError(
    'not-found',
    `apt-cache depends ${meta} names no linux-image-<release> package`,
    {
      hint: `refresh the package lists (sudo apt-get update), then check: apt-cache depends ${meta}`,
    },
  );
}

// The candidate version from `apt-cache policy PKG` (`  Candidate: 6.1.192-3`).
export function candidateVersion(pkg: string, policyOutput: string): string {
  const m = /^\s*Candidate:\s*(\S+)\s*$/m.exec(policyOutput);
  if (!m || m[1] === '(none)') {
    throw new XrunhuntError('not-found', `apt has no installable version of ${pkg}`, {
      hint: `refresh the package lists (sudo apt-get update), then check: apt-cache policy ${pkg}`,
    });
  }
  return m[1]!;
}

// The kernel release (`uname -r`) an image package installs: linux-image-6.1.0-57-amd64 → 6.1.0-57-amd64.
export function releaseOfImagePackage(pkg: string): string {
  const m = /^linux-image-(\d+\.\d+\.\d+-\d+-\S+)$/.exec(pkg);
  if (!m) {
    throw new XrunhuntError(
      'format',
      `"${pkg}" is not a Debian kernel image package name (expected linux-image-<major.minor.patch>-<abi>-<flavour>)`,
    );
  }
  return m[1]!;
}

// The headers package out-of-tree modules for a release are built against.
export function headersPackage(release: string): string {
  return `linux-headers-${release}`;
}

// Where Debian installs those headers (the kbuild tree `make -C` takes).
export function headersDir(release: string): string {
  return `/usr/src/linux-headers-${release}`;
}

/** The record of one unpacked kernel; not meta.json, which is a self-built kernel's record. */
export const DEBIAN_META_FILENAME = 'debian-kernel.json';

/** The files of one unpacked Debian kernel in the lab cache. */
export interface DebianKernelLayout {
  dir: string;
  /** `dpkg-deb -x` target: boot/, lib/modules/<release>/ (what `modprobe -d` takes). */
  root: string;
  bzImage: string;
  config: string;
  initrd: string;
  /** The injector built against this release's headers. */
  injectorDir: string;
  meta: string;
}

// Names the files of one unpacked kernel: one folder per package and version.
export function debianKernelLayout(
  cacheRoot: string,
  imagePackage: string,
  version: string,
): DebianKernelLayout {
  const release = releaseOfImagePackage(imagePackage);
  const dir = join(cacheRoot, `${imagePackage}_${version.replace(/[^A-Za-z0-9.+~-]/g, '_')}`);
  const root = join(dir, 'root');
  return {
    dir,
    root,
    bzImage: join(root, 'boot', `vmlinuz-${release}`),
    config: join(root, 'boot', `config-${release}`),
    initrd: join(dir, 'initramfs.cpio'),
    injectorDir: join(dir, 'injector'),
    meta: join(dir, DEBIAN_META_FILENAME),
  };
}

/**
 * Folders the guest's init covers with tmpfs (lab/guest/init.sh): a module tree under one of
 * them would be invisible to modprobe inside the guest.
 */
export const GUEST_HIDDEN_DIRS = ['/run', '/var/tmp', '/dev/shm', '/tmp', '/mnt'] as const;

// Refuses a lab cache the guest cannot see through its 9p root (modules are loaded from it).
export function assertCacheVisibleInGuest(cacheRoot: string, checkoutRoot: string): void {
  for (const d of GUEST_HIDDEN_DIRS) {
    const under = (p: string) => p === d || p.startsWith(`${d}/`);
    if (under(cacheRoot) && !under(checkoutRoot)) {
      throw new XrunhuntError(
        'unsupported',
        `the lab cache ${cacheRoot} is under ${d}, which the guest covers with a tmpfs: Debian's kernel could not load its modules from it`,
        {
          hint: 'point XRUNHUNT_LAB_CACHE somewhere else (the default ~/.cache/xrunhunt/lab works)',
        },
      );
    }
  }
}
