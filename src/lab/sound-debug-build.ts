// `--kernel debian-debug`: Debian's own kernel with xrun_debug, built without compiling a kernel.
// Fetches Debian's image (debian-fetch.ts), extracts only sound/ and lib/test_lockup.c from the
// same version's linux-source, builds the sound modules against a copy of the headers with the
// ALSA debug options on, test_lockup.ko against the headers as they are, and lays out a module
// root (Debian's modules, kernel/sound replaced by ours) for the guest's `modprobe -d`. Cached by
// everything it is built from (sound-debug-recipe.ts). The IO shell around that recipe.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  createWriteStream,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { cpus } from 'node:os';
import { promisify } from 'node:util';
import { XrunhuntError } from '../errors.js';
import { processIsAlive } from '../process-alive.js';
import { kernelSourceId } from './cache-key.js';
import { ensureDebianKernel } from './debian-fetch.js';
import type { DebianKernelMeta } from './debian-fetch.js';
import { headersDir, headersPackage } from './debian-kernel.js';
import { ensurePackages } from './ensure-packages.js';
import { SOUND_DEBUG_BUILD_PACKAGES } from './packages.js';
import { kernelSourceTarball } from './lab-paths.js';
import { runLogged } from './process-runner.js';
import {
  SOUND_DEBUG_OPTIONS,
  SOUND_KBUILD,
  SOUND_PCI_KBUILD,
  enableInAutoconf,
  enableInKconfig,
  skippedOptionOverrides,
  soundDebugCacheKey,
  sourceVersionMismatch,
} from './sound-debug-recipe.js';

const execFileP = promisify(execFile);

/** What meta.json of one sound-debug build records (`lab run` and `lab status` read it). */
export interface SoundDebugMeta {
  key: string;
  kernelRelease: string;
  imagePackage: string;
  imageVersion: string;
  /** Debian's image and initramfs: booted as they are. */
  bzImage: string;
  initrd: string;
  config: string;
  /** `modprobe -d` root: Debian's modules with kernel/sound rebuilt. */
  modulesRoot: string;
  testLockupModule: string;
  soundModules: number;
  buildSeconds: number;
  builtAt: string;
}

export interface SoundDebugOptions {
  cacheRoot: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  progress: (line: string) => void;
  force?: boolean;
}

/** The meta file of a build folder. */
const META = 'meta.json';

// An installed package's version, or null.
async function installedVersion(pkg: string): Promise<string | null> {
  try {
    const { stdout } = await execFileP('dpkg-query', ['-W', '-f=${Version}', pkg]);
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

// Reads a finished build's record whose files are all still there, or undefined.
export function readSoundDebugMeta(dir: string): SoundDebugMeta | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dir, META), 'utf8')) as SoundDebugMeta;
    return [m.bzImage, m.initrd, m.testLockupModule, m.modulesRoot].every((p) => existsSync(p))
      ? m
      : undefined;
  } catch {
    return undefined;
  }
}

// Every sound-debug build in the cache (for `lab status`).
export function listSoundDebugBuilds(cacheRoot: string): SoundDebugMeta[] {
  let names: string[];
  try {
    names = readdirSync(cacheRoot).filter((n) => n.startsWith('sound-debug-'));
  } catch {
    return [];
  }
  return names.flatMap((n) => readSoundDebugMeta(join(cacheRoot, n)) ?? []);
}

// Copies a headers tree, re-pointing its relative symlinks (scripts, tools → linux-kbuild) at
// their absolute targets so the copy builds from anywhere.
function copyHeaders(from: string, to: string): void {
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  for (const name of readdirSync(to)) {
    const p = join(to, name);
    let target: string;
    try {
      target = readlinkSync(p);
    } catch {
      continue;
    }
    rmSync(p);
    symlinkSync(resolve(from, target), p);
  }
}

// Rewrites a file in place through a pure text transform.
function edit(file: string, transform: (text: string) => string): void {
  writeFileSync(file, transform(readFileSync(file, 'utf8')));
}

// Every .ko under a folder, as paths relative to it.
function modulesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ko')) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

// A build killed outright (kill -9, power loss) leaves `<dir>.partial-<pid>`: removed once no
// process of that pid is alive.
function removeAbandonedPartials(dir: string): void {
  const prefix = `${basename(dir)}.partial-`;
  for (const name of readdirSync(dirname(dir))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid === process.pid || processIsAlive(pid)) continue;
    rmSync(join(dirname(dir), name), { recursive: true, force: true });
  }
}

// Builds (or reuses) Debian's kernel with xrun_debug sound modules and test_lockup.
export async function ensureSoundDebugKernel(opts: SoundDebugOptions): Promise<SoundDebugMeta> {
  const debian: DebianKernelMeta = await ensureDebianKernel('debian', {
    cacheRoot: opts.cacheRoot,
    env: opts.env,
    signal: opts.signal,
    progress: opts.progress,
    injector: false,
  });
  const release = debian.kernelRelease;
  const hdrPkg = headersPackage(release);
  const tarball = kernelSourceTarball(opts.env);
  const wanted = [hdrPkg, ...SOUND_DEBUG_BUILD_PACKAGES];
  await ensurePackages({
    env: opts.env,
    signal: opts.signal,
    progress: opts.progress,
    packages: wanted,
  });
  const sourceVersion = await installedVersion('linux-source-6.1');
  const headersVersion = await installedVersion(hdrPkg);
  const mismatch = sourceVersionMismatch(debian.version, sourceVersion, headersVersion);
  if (mismatch !== null) {
    throw new XrunhuntError(
      'unsupported',
      `--kernel debian-debug rebuilds the sound modules of ${debian.imagePackage} from the same version's source: ${mismatch}`,
      {
        hint: `install the matching versions: apt-get install ${hdrPkg}=${debian.version} linux-source-6.1=${debian.version}`,
      },
    );
  }
  if (!existsSync(tarball)) {
    throw new XrunhuntError('not-found', `kernel source ${tarball} does not exist`, {
      hint: 'install it with: apt-get install linux-source-6.1',
    });
  }
  const st = statSync(tarball);
  const key = soundDebugCacheKey({
    imagePackage: debian.imagePackage,
    imageVersion: debian.version,
    sourceVersion: sourceVersion!,
    sourceId: kernelSourceId(basename(tarball), st.size, st.mtimeMs),
    headersVersion: headersVersion!,
  });
  const dir = join(opts.cacheRoot, key);
  if (!opts.force) {
    const cached = readSoundDebugMeta(dir);
    if (cached) return cached;
  }
  const started = Date.now();
  const tmp = `${dir}.partial-${process.pid}`;
  removeAbandonedPartials(dir);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const log = createWriteStream(join(tmp, 'build.log'));
  const jobs = Math.max(1, cpus().length);
  const step = async (what: string, cmd: string, args: string[], cwd = tmp): Promise<void> => {
    log.write(`\n$ (cd ${cwd} && ${cmd} ${args.join(' ')})\n`);
    const res = await runLogged(cmd, args, { cwd, env: opts.env, log, signal: opts.signal });
    if (opts.signal.aborted)
      throw new XrunhuntError('interrupted', `lab build stopped during ${what}`);
    if (res.code !== 0) {
      throw new XrunhuntError(
        'lab',
        `lab build (debian-debug) failed during ${what} (${cmd} exited with ${res.code ?? res.signal})`,
        {
          hint: `last lines:\n${res.tail.slice(-12).join('\n')}\nfull log: ${join(tmp, 'build.log')}`,
        },
      );
    }
  };
  const phase = (line: string) =>
    opts.progress(
      `lab build (debian-debug) ${((Date.now() - started) / 1000).toFixed(0)} s: ${line}`,
    );
  try {
    // 1. Only sound/ and test_lockup.c of the tarball (xz still streams all of it).
    phase(`extracting sound/ from ${basename(tarball)}`);
    const src = join(tmp, 'src');
    mkdirSync(src);
    const top = basename(tarball).replace(/\.tar(\.[a-z0-9]+)?$/, '');
    await step('extract', 'tar', [
      '-C',
      src,
      '-xf',
      tarball,
      `${top}/sound`,
      `${top}/lib/test_lockup.c`,
    ]);
    const tree = join(src, top);
    if (!existsSync(join(tree, 'sound', 'core', 'pcm_lib.c'))) {
      throw new XrunhuntError('lab', `${tarball} has no ${top}/sound/core/pcm_lib.c`, {
        hint: 'XRUNHUNT_LAB_SOURCE must name a Linux source tarball whose top folder is named like the file',
      });
    }

    // 2. The headers with the ALSA debug options on.
    const headers = join(tmp, 'headers');
    copyHeaders(headersDir(release), headers);
    edit(join(headers, '.config'), (t) => enableInKconfig(t, SOUND_DEBUG_OPTIONS));
    edit(join(headers, 'include', 'config', 'auto.conf'), (t) =>
      enableInKconfig(t, SOUND_DEBUG_OPTIONS),
    );
    edit(join(headers, 'include', 'generated', 'autoconf.h'), (t) =>
      enableInAutoconf(t, SOUND_DEBUG_OPTIONS),
    );

    // 3. The sound modules (every one together: the options change ALSA's structures).
    const sound = join(tmp, 'build', 'sound');
    cpSync(join(tree, 'sound'), sound, { recursive: true });
    writeFileSync(join(sound, 'Kbuild'), SOUND_KBUILD);
    writeFileSync(join(sound, 'pci', 'Kbuild'), SOUND_PCI_KBUILD);
    phase(
      `compiling the sound modules against ${release}'s headers with ${SOUND_DEBUG_OPTIONS.join(', ')} (about 2–4 min on 2 cores)`,
    );
    await step('compile (sound)', 'make', [
      '-C',
      headers,
      `M=${sound}`,
      `-j${jobs}`,
      ...skippedOptionOverrides(),
      'modules',
    ]);

    // 4. test_lockup.ko: no ALSA in it, so against the headers as Debian ships them.
    const lockupDir = join(tmp, 'build', 'test_lockup');
    mkdirSync(lockupDir, { recursive: true });
    copyFileSync(join(tree, 'lib', 'test_lockup.c'), join(lockupDir, 'test_lockup.c'));
    writeFileSync(join(lockupDir, 'Kbuild'), 'obj-m := test_lockup.o\n');
    phase('compiling test_lockup.ko');
    await step('compile (test_lockup)', 'make', [
      '-C',
      headersDir(release),
      `M=${lockupDir}`,
      'modules',
    ]);

    // 5. The module root: Debian's modules (hard links), kernel/sound ours, depmod'ed.
    phase('laying out the module root');
    const modDir = join(tmp, 'root', 'lib', 'modules', release);
    const debianModDir = join(debian.modulesRoot, 'lib', 'modules', release);
    mkdirSync(modDir, { recursive: true });
    await step('module root', 'cp', ['-al', join(debianModDir, 'kernel'), join(modDir, 'kernel')]);
    for (const f of ['modules.order', 'modules.builtin', 'modules.builtin.modinfo']) {
      if (existsSync(join(debianModDir, f))) copyFileSync(join(debianModDir, f), join(modDir, f));
    }
    rmSync(join(modDir, 'kernel', 'sound'), { recursive: true, force: true });
    const built = modulesUnder(sound);
    for (const ko of built) {
      const to = join(modDir, 'kernel', 'sound', ko);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(join(sound, ko), to);
    }
    const lockup = join(modDir, 'kernel', 'lib', 'test_lockup.ko');
    mkdirSync(dirname(lockup), { recursive: true });
    copyFileSync(join(lockupDir, 'test_lockup.ko'), lockup);
    // As Debian's packaging does (debug info is ~9x the size, and the guest reads it over 9p).
    await step('strip', 'strip', [
      '--strip-debug',
      lockup,
      ...built.map((ko) => join(modDir, 'kernel', 'sound', ko)),
    ]);
    await step('depmod', 'depmod', ['-b', join(tmp, 'root'), release]);
    // Only the module root is kept: sources, headers and objects are 300+ MB.
    rmSync(join(tmp, 'src'), { recursive: true, force: true });
    rmSync(join(tmp, 'build'), { recursive: true, force: true });
    rmSync(headers, { recursive: true, force: true });
    log.end();
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (err) {
    log.end();
    // The log stays for the error's hint; the 300+ MB of sources, headers and objects do not.
    for (const big of ['src', 'build', 'headers']) {
      rmSync(join(tmp, big), { recursive: true, force: true });
    }
    throw err;
  }
  const meta: SoundDebugMeta = {
    key,
    kernelRelease: release,
    imagePackage: debian.imagePackage,
    imageVersion: debian.version,
    bzImage: debian.bzImage,
    initrd: debian.initrd,
    config: join(debian.modulesRoot, 'boot', `config-${release}`),
    modulesRoot: join(dir, 'root'),
    testLockupModule: join(
      dir,
      'root',
      'lib',
      'modules',
      release,
      'kernel',
      'lib',
      'test_lockup.ko',
    ),
    soundModules: modulesUnder(join(dir, 'root', 'lib', 'modules', release, 'kernel', 'sound'))
      .length,
    buildSeconds: Math.round((Date.now() - started) / 1000),
    builtAt: new Date().toISOString(),
  };
  writeFileSync(join(dir, META), JSON.stringify(meta, null, 2) + '\n');
  opts.progress(
    `lab: debian-debug: ${meta.soundModules} sound modules with xrun_debug and test_lockup.ko for ${release} in ${meta.buildSeconds} s (${dir})`,
  );
  return meta;
}
