// The Debian packages the lab needs, and how to tell the user to install them.
// Pure: takes `dpkg-query` output, returns what is missing and the exact command line. Every
// name here is also in debian-packages.txt (the one list scripts/install-deps.sh installs
// from), in the set that says who needs it; src/lab/package-sets.test.ts checks that.

/** Everything `lab build` and `lab run` use (platform-facts §5 "Packages"). */
export const LAB_PACKAGES: readonly string[] = [
  'qemu-system-x86',
  'alsa-utils',
  'libasound2',
  'e2fsprogs',
  'linux-source-6.1',
  'build-essential',
  'bc',
  'bison',
  'flex',
  'libelf-dev',
  'libssl-dev',
  'cpio',
  'xz-utils',
  'kmod',
  'util-linux',
];

/** What `lab build --kernel debian` needs to unpack Debian's kernel and make its initramfs. */
export const DEBIAN_KERNEL_PACKAGES: readonly string[] = ['busybox-static', 'kmod'];

/** What the xrun_debug sound modules' build (`lab build`) needs beside the kernel's headers. */
export const SOUND_DEBUG_BUILD_PACKAGES: readonly string[] = [
  'linux-source-6.1',
  'build-essential',
  'bc',
  'kmod',
  'xz-utils',
];

/** The sets of debian-packages.txt; each adds to the ones before it. */
export const PACKAGE_SETS = ['runtime', 'lab', 'test'] as const;
export type PackageSet = (typeof PACKAGE_SETS)[number];

/** One line of debian-packages.txt. */
export interface ListedPackage {
  set: PackageSet;
  name: string;
  why: string;
}

// Reads debian-packages.txt (`SET PACKAGE WHAT-USES-IT`, # comments), refusing a line that
// does not say which set it is in and who uses it: a package nobody can explain is not listed.
export function parseDebianPackageList(text: string): ListedPackage[] {
  const out: ListedPackage[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(\S+)\s+(\S+)\s+(\S.*)$/.exec(line);
    const set = m?.[1] as PackageSet | undefined;
    if (!m || !set || !PACKAGE_SETS.includes(set)) {
      throw new Error(
        `debian-packages.txt line ${i + 1}: expected "SET PACKAGE WHAT-USES-IT" with SET one of ${PACKAGE_SETS.join(', ')}, found "${line}"`,
      );
    }
    if (seen.has(m[2]!))
      throw new Error(`debian-packages.txt line ${i + 1}: ${m[2]} is listed twice`);
    seen.add(m[2]!);
    out.push({ set, name: m[2]!, why: m[3]! });
  });
  return out;
}

// The packages `install-deps.sh --set NAME` installs: that set and the ones before it.
export function packagesOfSet(list: readonly ListedPackage[], set: PackageSet): string[] {
  const upTo = PACKAGE_SETS.slice(0, PACKAGE_SETS.indexOf(set) + 1) as readonly PackageSet[];
  return list.filter((p) => upTo.includes(p.set)).map((p) => p.name);
}

/**
 * What `lab … --pipewire` runs in the guest (whose root is this host's `/`): the server and
 * pw-play/pw-cli/pw-dump (pipewire-bin), and the session manager. Checked only with --pipewire.
 */
export const LAB_PIPEWIRE_PACKAGES: readonly string[] = ['pipewire', 'pipewire-bin', 'wireplumber'];

// Reads `dpkg-query -W -f='${Package} ${Status}\n' pkgs…` output (stderr lines for unknown
// packages are simply absent) and returns the wanted packages that are not installed.
export function missingPackages(wanted: readonly string[], dpkgOutput: string): string[] {
  const installed = new Set<string>();
  for (const line of dpkgOutput.split('\n')) {
    const [name, ...status] = line.trim().split(/\s+/);
    if (name && status.join(' ') === 'install ok installed') installed.add(name.split(':')[0]!);
  }
  return wanted.filter((p) => !installed.has(p));
}

// The exact command a user should run (printed when xrunhunt is not root).
export function aptInstallLine(packages: readonly string[]): string {
  return `sudo apt-get install --no-install-recommends -y ${packages.join(' ')}`;
}
