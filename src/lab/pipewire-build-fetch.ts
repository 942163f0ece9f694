// `--pipewire-build backports`: fetches PipeWire 1.4 + WirePlumber 0.5 from Debian 12's
// bookworm-backports into the lab cache once per version pair (apt-get download with a private
// sources list and lists folder, dpkg-deb -x, no install: the host's PipeWire 0.3.65, which
// other lab runs and fixtures use, stays as it is). The IO shell around pipewire-build.ts.
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XrunhuntError } from '../errors.js';
import { GUEST_HIDDEN_DIRS } from './debian-kernel.js';
import type { GuestPipewireOptions } from './guest-pipewire.js';
import { assertIrqModeSupported } from './guest-pipewire-support.js';
import {
  BACKPORTS_GROUPS,
  BACKPORTS_SUITE,
  HOST_SUITE_EXTRAS,
  backportsSourcesLine,
  backportsVersion,
  chooseBuild,
  debianMirror,
  missingLibraries,
  missingLibrariesError,
  pipewireBuildLayout,
  privateAptOptions,
  treeLibDir,
} from './pipewire-build.js';
import type { PipewireBuildChoice, PipewireBuildMeta } from './pipewire-build.js';
import type { SoundCardName } from './sound-cards.js';
import { runLogged } from './process-runner.js';

const execFileP = promisify(execFile);

/** The private package lists are refreshed when older than this (a new backport, a fix). */
const LISTS_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

export interface PipewireFetchOptions {
  cacheRoot: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  progress: (line: string) => void;
}

// Runs a program; a non-zero exit is an error naming what failed, with the output's tail.
async function run(
  what: string,
  cmd: string,
  args: string[],
  opts: PipewireFetchOptions,
  cwd?: string,
): Promise<void> {
  const res = await runLogged(cmd, args, {
    signal: opts.signal,
    env: { ...opts.env, DEBIAN_FRONTEND: 'noninteractive' },
    ...(cwd ? { cwd } : {}),
  });
  if (res.code !== 0) {
    throw new XrunhuntError(
      'lab',
      `--pipewire-build backports: ${what} failed (exit ${res.code})`,
      {
        hint: `${res.tail.slice(-6).join('\n')}\ncommand: ${cmd} ${args.join(' ')}`,
      },
    );
  }
}

// The text of the host's apt sources (deb822 files first, then the one-line list).
function hostSourcesText(): string {
  const dir = '/etc/apt/sources.list.d';
  const parts: string[] = [];
  try {
    for (const f of readdirSync(dir).sort()) {
      if (f.endsWith('.sources') || f.endsWith('.list'))
        parts.push(readFileSync(join(dir, f), 'utf8'));
    }
  } catch {
    // no sources.list.d
  }
  try {
    parts.push(readFileSync('/etc/apt/sources.list', 'utf8'));
  } catch {
    // no sources.list
  }
  return parts.join('\n\n');
}

// Whether the private lists hold a Packages index younger than LISTS_MAX_AGE_MS.
function listsAgeMs(listsDir: string): number | null {
  try {
    const idx = readdirSync(listsDir).filter((f) => f.includes('_Packages'));
    if (idx.length === 0) return null;
    return Date.now() - Math.max(...idx.map((f) => statSync(join(listsDir, f)).mtimeMs));
  } catch {
    return null;
  }
}

// Writes the private sources list and refreshes the private lists when missing or old.
async function refreshPrivateLists(aptDir: string, opts: PipewireFetchOptions): Promise<void> {
  const mirror = debianMirror(hostSourcesText());
  if (!mirror) {
    throw new XrunhuntError(
      'unsupported',
      `--pipewire-build backports reads Debian's ${BACKPORTS_SUITE} from the host's Debian 12 (bookworm) mirror, and the host's apt sources name no bookworm mirror`,
      { hint: 'use --pipewire-build host, or run the lab on a Debian 12 host' },
    );
  }
  mkdirSync(join(aptDir, 'lists', 'partial'), { recursive: true });
  mkdirSync(join(aptDir, 'cache', 'archives', 'partial'), { recursive: true });
  writeFileSync(join(aptDir, 'sources.list'), backportsSourcesLine(mirror));
  const age = listsAgeMs(join(aptDir, 'lists'));
  if (age !== null && age < LISTS_MAX_AGE_MS) return;
  opts.progress(`lab: pipewire: reading the ${BACKPORTS_SUITE} package list from ${mirror.uri}`);
  try {
    await run(
      `apt-get update of ${BACKPORTS_SUITE} (private lists in ${aptDir}; is the mirror reachable?)`,
      'apt-get',
      [...privateAptOptions(aptDir), 'update'],
      opts,
    );
  } catch (err) {
    if (age === null) throw err;
    opts.progress(
      `lab: pipewire: the list refresh failed; using the lists from ${Math.round(age / 86_400_000)} days ago`,
    );
  }
}

// The versions of the two groups in the private lists.
async function candidateVersions(
  aptDir: string,
): Promise<{ pipewire: string; wireplumber: string }> {
  const madison = async (pkg: string): Promise<string> => {
    try {
      return (await execFileP('apt-cache', [...privateAptOptions(aptDir), 'madison', pkg])).stdout;
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') {
        throw new XrunhuntError(
          'unsupported',
          '--pipewire-build backports needs apt, and apt-cache is not installed',
          {
            hint: 'use --pipewire-build host',
          },
        );
      }
      throw new XrunhuntError('lab', `apt-cache madison ${pkg} failed: ${(err as Error).message}`);
    }
  };
  return {
    pipewire: backportsVersion('pipewire', await madison('pipewire')),
    wireplumber: backportsVersion('wireplumber', await madison('wireplumber')),
  };
}

// Reads meta.json of an unpacked tree whose root is still there.
export function readPipewireBuildMeta(metaPath: string): PipewireBuildMeta | undefined {
  try {
    const m = JSON.parse(readFileSync(metaPath, 'utf8')) as PipewireBuildMeta;
    return existsSync(join(m.root, 'usr', 'bin', 'pipewire')) ? m : undefined;
  } catch {
    return undefined;
  }
}

// Every shared object and program of the tree that `ldd` finds a library missing for.
async function checkLibraries(root: string, opts: PipewireFetchOptions): Promise<void> {
  const lib = treeLibDir(root);
  const files: string[] = ['pipewire', 'wireplumber', 'pw-play', 'pw-cli', 'pw-dump'].map((b) =>
    join(root, 'usr', 'bin', b),
  );
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.so')) files.push(p);
    }
  };
  for (const d of ['spa-0.2', 'pipewire-0.3', 'wireplumber-0.5']) walk(join(lib, d));
  let out = '';
  for (const f of files) {
    try {
      out += (await execFileP('ldd', [f], { env: { ...opts.env, LD_LIBRARY_PATH: lib } })).stdout;
    } catch (err) {
      out += (err as { stdout?: string }).stdout ?? '';
    }
  }
  const missing = missingLibraries(out);
  if (missing.length > 0) throw missingLibrariesError(missing, root);
}

// Makes sure the backports PipeWire + WirePlumber tree is unpacked in the cache; returns its meta.
export async function ensureBackportsPipewire(
  opts: PipewireFetchOptions,
): Promise<PipewireBuildMeta> {
  const hidden = GUEST_HIDDEN_DIRS.find(
    (d) => opts.cacheRoot === d || opts.cacheRoot.startsWith(`${d}/`),
  );
  if (hidden) {
    throw new XrunhuntError(
      'unsupported',
      `the lab cache ${opts.cacheRoot} is under ${hidden}, which the guest covers with a tmpfs: the guest could not run PipeWire from it`,
      { hint: 'point XRUNHUNT_LAB_CACHE somewhere else (the default ~/.cache/xrunhunt/lab works)' },
    );
  }
  const aptDir = pipewireBuildLayout(opts.cacheRoot, '-', '-').aptDir;
  await refreshPrivateLists(aptDir, opts);
  const v = await candidateVersions(aptDir);
  const layout = pipewireBuildLayout(opts.cacheRoot, v.pipewire, v.wireplumber);
  const cached = readPipewireBuildMeta(layout.meta);
  if (cached) return cached;

  const started = Date.now();
  rmSync(layout.dir, { recursive: true, force: true });
  const dl = join(layout.dir, 'download');
  mkdirSync(dl, { recursive: true });
  const wanted = [
    ...BACKPORTS_GROUPS.pipewire.map((p) => `${p}=${v.pipewire}`),
    ...BACKPORTS_GROUPS.wireplumber.map((p) => `${p}=${v.wireplumber}`),
  ];
  opts.progress(`lab: pipewire: apt-get download ${wanted.join(' ')} (${BACKPORTS_SUITE})`);
  await run(
    `apt-get download from ${BACKPORTS_SUITE}`,
    'apt-get',
    [...privateAptOptions(aptDir), 'download', ...wanted],
    opts,
    dl,
  );
  // From the host's own suite with the host's own lists (only downloaded, not installed).
  await run(
    `apt-get download ${HOST_SUITE_EXTRAS.join(' ')}`,
    'apt-get',
    ['-o', 'APT::Sandbox::User=root', 'download', ...HOST_SUITE_EXTRAS],
    opts,
    dl,
  );
  const debs = readdirSync(dl).filter((f) => f.endsWith('.deb'));
  const expected = wanted.length + HOST_SUITE_EXTRAS.length;
  if (debs.length !== expected) {
    throw new XrunhuntError(
      'lab',
      `--pipewire-build backports: apt-get download left ${debs.length} .deb files in ${dl}, expected ${expected}`,
    );
  }
  const debBytes = debs.reduce((n, f) => n + statSync(join(dl, f)).size, 0);
  const part = `${layout.root}.part`;
  rmSync(part, { recursive: true, force: true });
  for (const f of debs) await run(`dpkg-deb -x ${f}`, 'dpkg-deb', ['-x', join(dl, f), part], opts);
  await checkLibraries(part, opts);
  renameSync(part, layout.root);
  rmSync(dl, { recursive: true, force: true });
  const meta: PipewireBuildMeta = {
    pipewireVersion: v.pipewire,
    wireplumberVersion: v.wireplumber,
    root: layout.root,
    packages: debs.sort(),
    debBytes,
    fetchSeconds: Math.round((Date.now() - started) / 100) / 10,
    fetchedAt: new Date().toISOString(),
  };
  writeFileSync(layout.meta, JSON.stringify(meta, null, 2) + '\n');
  opts.progress(
    `lab: pipewire: PipeWire ${v.pipewire} + WirePlumber ${v.wireplumber} unpacked in ${layout.root} (${(debBytes / 1e6).toFixed(1)} MB of .deb, ${meta.fetchSeconds} s)`,
  );
  return meta;
}

// Whether the host's PipeWire can run IRQ mode itself (its ALSA plugin reads disable-tsched).
function hostKnowsDisableTsched(): boolean {
  try {
    assertIrqModeSupported([]);
    return true;
  } catch {
    return false;
  }
}

// The PipeWire options of a lab run with the build `--pipewire-build` asks for: the host's
// (refused for irq mode when it cannot do it), or the backports tree, fetched on first use.
export async function withPipewireBuild(
  pipewire: GuestPipewireOptions,
  choice: PipewireBuildChoice,
  cards: readonly SoundCardName[],
  opts: PipewireFetchOptions,
): Promise<GuestPipewireOptions> {
  const build = chooseBuild(choice, pipewire.mode, hostKnowsDisableTsched);
  if (build === 'host') {
    if (pipewire.mode === 'irq') assertIrqModeSupported(cards);
    return pipewire;
  }
  const meta = await ensureBackportsPipewire(opts);
  opts.progress(
    `lab: pipewire: running PipeWire ${meta.pipewireVersion} + WirePlumber ${meta.wireplumberVersion} from ${meta.root}${choice === 'auto' ? ` (--pipewire ${pipewire.mode}: the host's PipeWire cannot use period interrupts; --pipewire-build host refuses instead)` : ''}`,
  );
  return {
    ...pipewire,
    tree: {
      root: meta.root,
      pipewireVersion: meta.pipewireVersion,
      wireplumberVersion: meta.wireplumberVersion,
    },
  };
}
