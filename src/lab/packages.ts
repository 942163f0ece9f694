// The Debian packages the lab needs, and how to tell the user to install them.
// Pure: takes `dpkg-query` output, returns what is missing and the exact command line.

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
