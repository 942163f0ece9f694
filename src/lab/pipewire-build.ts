// `lab … --pipewire-build backports`: a current PipeWire (1.4 from Debian 12's own
// bookworm-backports suite) + WirePlumber 0.5, unpacked into the lab cache and run in the guest
// from that tree, because Debian 12's PipeWire 0.3.65 cannot run in IRQ mode (its ALSA plugin
// has no api.alsa.disable-tsched: guest-pipewire-support.ts). Nothing is installed on the host:
// apt reads a private sources list and lists folder in the cache. Pure: names, paths, apt
// options, the environment that runs the tree, and which build `auto` means.
import { join } from 'node:path';
import { UsageError, XrunhuntError } from '../errors.js';

/** `host`: the host's PipeWire (the guest's `/` is the host's); `backports`: the unpacked tree. */
export type PipewireBuild = 'host' | 'backports';
export const PIPEWIRE_BUILD_CHOICES = ['auto', 'host', 'backports'] as const;
export type PipewireBuildChoice = (typeof PIPEWIRE_BUILD_CHOICES)[number];

/** The suite the tree comes from (Debian's own, same mirror and archive key as bookworm). */
export const BACKPORTS_SUITE = 'bookworm-backports';

/** Source package groups of the tree: every binary package of a group has the same version. */
export const BACKPORTS_GROUPS = {
  pipewire: [
    'pipewire',
    'pipewire-bin',
    'libpipewire-0.3-0',
    'libpipewire-0.3-modules',
    'libpipewire-0.3-common',
    'libspa-0.2-modules',
  ],
  wireplumber: ['wireplumber', 'libwireplumber-0.5-0'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Libraries the tree needs that a host with Debian 12's PipeWire lacks, taken from the host's
 * own suite (also unpacked, not installed): WirePlumber 0.5's Lua scripting links liblua 5.4.
 */
export const HOST_SUITE_EXTRAS: readonly string[] = ['liblua5.4-0'];

/** Shared objects of the tree that may stay unresolved (optional modules nobody loads here). */
export const OPTIONAL_LIBRARIES: readonly string[] = [
  'libffado.so.2',
  'libebur128.so.1',
  'libmysofa.so.1',
];

// Which build `--pipewire-build auto` means: the host's for timer mode (what the other lab
// runs and fixtures use); for irq mode the host's only when its ALSA plugin reads
// api.alsa.disable-tsched, else backports (the property would be ignored: timer mode again).
export function chooseBuild(
  choice: PipewireBuildChoice,
  mode: 'timer' | 'irq',
  hostKnowsDisableTsched: () => boolean,
): PipewireBuild {
  if (choice !== 'auto') return choice;
  if (mode === 'timer') return 'host';
  return hostKnowsDisableTsched() ? 'host' : 'backports';
}

// The host's Debian mirror (the first `deb` source of the host's suite) from the text of
// /etc/apt/sources.list.d/*.sources (deb822) or sources.list (one-line), with its keyring.
export function debianMirror(
  sourcesText: string,
  hostSuite = 'bookworm',
): { uri: string; signedBy: string | null } | null {
  for (const stanza of sourcesText.split(/\n\s*\n/)) {
    const field = (name: string): string | undefined =>
      new RegExp(`^${name}:\\s*(.+)$`, 'mi').exec(stanza)?.[1]?.trim();
    const types = field('Types');
    const uris = field('URIs');
    const suites = field('Suites');
    if (types && uris && suites) {
      if (types.split(/\s+/).includes('deb') && suites.split(/\s+/).includes(hostSuite)) {
        return { uri: uris.split(/\s+/)[0]!, signedBy: field('Signed-By') ?? null };
      }
      continue;
    }
    for (const line of stanza.split('\n')) {
      const m = /^\s*deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s/.exec(line);
      if (m && m[3] === hostSuite) {
        const signed = /signed-by=(\S+)/.exec(m[1] ?? '')?.[1] ?? null;
        return { uri: m[2]!, signedBy: signed };
      }
    }
  }
  return null;
}

// The private sources.list line for the backports suite on the host's mirror.
export function backportsSourcesLine(mirror: { uri: string; signedBy: string | null }): string {
  const opts = mirror.signedBy ? `[signed-by=${mirror.signedBy}] ` : '';
  return `deb ${opts}${mirror.uri} ${BACKPORTS_SUITE} main\n`;
}

/** The files of the backports tree in the cache. */
export interface PipewireBuildLayout {
  /** `<cache>/pipewire-backports/` */
  base: string;
  /** Private apt state: sources.list, lists/, cache/ (the host's apt config is not touched). */
  aptDir: string;
  /** `<base>/<pipewire version>+wp<wireplumber version>/` */
  dir: string;
  /** The unpacked packages (usr/bin, usr/lib/…, usr/share/…), complete once renamed. */
  root: string;
  meta: string;
}

// A version as a file name (Debian versions contain `~` and `+`).
function fileSafe(version: string): string {
  return version.replace(/[^A-Za-z0-9.-]/g, '_');
}

// Names the files of the tree of one PipeWire + WirePlumber version pair.
export function pipewireBuildLayout(
  cacheRoot: string,
  pipewireVersion: string,
  wireplumberVersion: string,
): PipewireBuildLayout {
  const base = join(cacheRoot, 'pipewire-backports');
  const dir = join(base, `${fileSafe(pipewireVersion)}+wp${fileSafe(wireplumberVersion)}`);
  return {
    base,
    aptDir: join(base, 'apt'),
    dir,
    root: join(dir, 'root'),
    meta: join(dir, 'meta.json'),
  };
}

// apt options that read only the private sources list and lists folder under `aptDir`.
export function privateAptOptions(aptDir: string): string[] {
  return [
    '-o',
    `Dir::Etc::sourcelist=${join(aptDir, 'sources.list')}`,
    '-o',
    'Dir::Etc::sourceparts=-',
    '-o',
    `Dir::State::Lists=${join(aptDir, 'lists')}`,
    '-o',
    `Dir::Cache=${join(aptDir, 'cache')}`,
    '-o',
    'APT::Sandbox::User=root',
  ];
}

/** What meta.json of one unpacked tree records. */
export interface PipewireBuildMeta {
  pipewireVersion: string;
  wireplumberVersion: string;
  root: string;
  packages: string[];
  debBytes: number;
  fetchSeconds: number;
  fetchedAt: string;
}

/** The multiarch library folder of the tree (the lab guest is x86_64). */
export function treeLibDir(root: string): string {
  return join(root, 'usr', 'lib', 'x86_64-linux-gnu');
}

// The environment that makes pipewire, wireplumber and the pw-* tools of the tree use the
// tree's libraries, plugins, modules and scripts instead of the host's (config folders are
// set by the guest script: they are copies on tmpfs with the lab's drop-ins).
export function pipewireTreeEnv(root: string): Record<string, string> {
  const lib = treeLibDir(root);
  return {
    PATH: `${join(root, 'usr', 'bin')}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    LD_LIBRARY_PATH: lib,
    SPA_PLUGIN_DIR: join(lib, 'spa-0.2'),
    PIPEWIRE_MODULE_DIR: join(lib, 'pipewire-0.3'),
    WIREPLUMBER_MODULE_DIR: join(lib, 'wireplumber-0.5'),
    WIREPLUMBER_DATA_DIR: join(root, 'usr', 'share', 'wireplumber'),
  };
}

// The `not found` libraries of `ldd` output, minus the optional ones.
export function missingLibraries(lddOutput: string): string[] {
  const out = new Set<string>();
  for (const m of lddOutput.matchAll(/^\s*(\S+) => not found/gm)) {
    if (!OPTIONAL_LIBRARIES.includes(m[1]!)) out.add(m[1]!);
  }
  return [...out].sort();
}

// The error for a tree whose programs cannot start here (a library the host lacks).
export function missingLibrariesError(missing: readonly string[], root: string): XrunhuntError {
  return new XrunhuntError(
    'not-found',
    `--pipewire-build backports: the unpacked PipeWire in ${root} needs libraries this host does not have: ${missing.join(', ')}`,
    {
      hint: `find their packages with: apt-file search ${missing[0]} (then apt-get install them), or use --pipewire-build host`,
    },
  );
}

// The backports version of `pkg` from `apt-cache madison pkg` (`pkg | 1.4.2-1~bpo12+1 | … bookworm-backports/main amd64 Packages`).
export function backportsVersion(pkg: string, madisonOutput: string): string {
  for (const line of madisonOutput.split('\n')) {
    const cols = line.split('|').map((c) => c.trim());
    if (cols[0] === pkg && cols[1] && cols[2]?.includes(`${BACKPORTS_SUITE}/`)) return cols[1];
  }
  throw new XrunhuntError('not-found', `${BACKPORTS_SUITE} has no package ${pkg}`, {
    hint: `check the suite's list with the lab's private apt state, or use --pipewire-build host`,
  });
}

// Checks a --pipewire-build value (the option parser checks choices too; this keeps the type honest).
export function parsePipewireBuildChoice(value: string): PipewireBuildChoice {
  const c = PIPEWIRE_BUILD_CHOICES.find((x) => x === value);
  if (c === undefined) {
    throw new UsageError(`--pipewire-build must be auto, host or backports, got "${value}"`);
  }
  return c;
}
