// `--kernel debian|debian-rt`: fetches Debian's own kernel into the lab cache once per package
// version (apt-get download + dpkg-deb -x, no install, no compile), runs depmod on it, makes the
// initramfs, and builds the ground-truth injector against the release's headers. The IO shell
// around debian-kernel.ts, initramfs.ts and injector.ts; progress lines go to `progress`.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
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
import {
  DEBIAN_METAPACKAGES,
  DEBIAN_META_FILENAME,
  assertCacheVisibleInGuest,
  candidateVersion,
  debianKernelLayout,
  headersDir,
  headersPackage,
  imagePackageFromDepends,
  releaseOfImagePackage,
} from './debian-kernel.js';
import type { DebianKernelLayout, DebianKernelName } from './debian-kernel.js';
import { ensurePackages } from './ensure-packages.js';
import { buildInitramfs } from './initramfs-build.js';
import { INJECTOR_SOURCES, injectorBuildCommand, injectorSourceHash } from './injector.js';
import { repoRoot } from './lab-paths.js';
import { aptInstallLine, DEBIAN_KERNEL_PACKAGES } from './packages.js';
import { runLogged } from './process-runner.js';

const execFileP = promisify(execFile);

/** What meta.json of one unpacked kernel records. */
export interface DebianKernelMeta {
  name: DebianKernelName;
  imagePackage: string;
  version: string;
  kernelRelease: string;
  bzImage: string;
  initrd: string;
  /** `modprobe -d` root in the guest (holds lib/modules/<release>). */
  modulesRoot: string;
  /** xrunhunt_inject.ko, or null when the headers could not be had. */
  injectorModule: string | null;
  /** injectorSourceHash of the sources the module was built from. */
  injectorSource: string | null;
  debBytes: number;
  fetchSeconds: number;
  fetchedAt: string;
}

export interface DebianFetchOptions {
  cacheRoot: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  progress: (line: string) => void;
  /** Build the injector too (needs linux-headers-<release>; installs it when root). */
  injector: boolean;
}

// Runs an apt query; a missing apt is an error that names the package and the command.
async function aptQuery(args: string[], pkg: string): Promise<string> {
  try {
    return (await execFileP('apt-cache', args)).stdout;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') {
      throw new XrunhuntError(
        'unsupported',
        `--kernel debian needs apt (to fetch Debian's package ${pkg}), and apt-cache is not installed`,
        { hint: 'on a non-Debian host boot your own bzImage with --kernel PATH' },
      );
    }
    throw new XrunhuntError('lab', `apt-cache ${args.join(' ')} failed: ${(err as Error).message}`);
  }
}

// Reads meta.json of an unpacked kernel whose files are all still there.
export function readDebianMeta(
  layout: Pick<DebianKernelLayout, 'meta'>,
): DebianKernelMeta | undefined {
  try {
    const m = JSON.parse(readFileSync(layout.meta, 'utf8')) as DebianKernelMeta;
    return existsSync(m.bzImage) && existsSync(m.initrd) ? m : undefined;
  } catch {
    return undefined;
  }
}

// Which package and version `--kernel NAME` means today (apt's package lists, no download).
export async function resolveDebianPackage(
  name: DebianKernelName,
): Promise<{ imagePackage: string; version: string; release: string }> {
  const meta = DEBIAN_METAPACKAGES[name];
  const imagePackage = imagePackageFromDepends(meta, await aptQuery(['depends', meta], meta));
  const version = candidateVersion(
    imagePackage,
    await aptQuery(['policy', imagePackage], imagePackage),
  );
  return { imagePackage, version, release: releaseOfImagePackage(imagePackage) };
}

async function run(cmd: string, args: string[], opts: DebianFetchOptions, cwd?: string) {
  const res = await runLogged(cmd, args, {
    signal: opts.signal,
    env: { ...opts.env, DEBIAN_FRONTEND: 'noninteractive' },
    ...(cwd ? { cwd } : {}),
  });
  if (res.code !== 0) {
    throw new XrunhuntError('lab', `${cmd} ${args.join(' ')} failed (exit ${res.code})`, {
      hint: res.tail.slice(-8).join('\n'),
    });
  }
}

// Builds xrunhunt_inject.ko against /usr/src/linux-headers-<release> (installing the headers
// package when root; otherwise the error names it and the apt-get line).
async function buildInjector(
  layout: DebianKernelLayout,
  release: string,
  opts: DebianFetchOptions,
): Promise<string> {
  const pkg = headersPackage(release);
  const dir = headersDir(release);
  if (!existsSync(join(dir, 'Makefile'))) {
    if (process.getuid?.() !== 0) {
      throw new XrunhuntError(
        'permission',
        `the injector (--inject on --kernel debian) is built against ${pkg}, which is not installed`,
        { hint: `install it with:\n  ${aptInstallLine([pkg])}` },
      );
    }
    opts.progress(`lab: installing ${pkg} for the injector`);
    await ensurePackages({ ...opts, packages: [pkg] });
  }
  const build = join(layout.injectorDir, 'build');
  rmSync(build, { recursive: true, force: true });
  mkdirSync(build, { recursive: true });
  for (const f of INJECTOR_SOURCES)
    copyFileSync(join(repoRoot, 'lab', 'injector', f), join(build, f));
  const cmd = injectorBuildCommand(dir, build);
  opts.progress(`lab: building the injector: ${cmd.cmd} ${cmd.args.join(' ')}`);
  await run(cmd.cmd, cmd.args, opts);
  return cmd.module;
}

// Makes sure Debian's kernel NAME is unpacked, has an initramfs (and the injector when asked):
// a cached folder per package version is reused.
export async function ensureDebianKernel(
  name: DebianKernelName,
  opts: DebianFetchOptions,
): Promise<DebianKernelMeta> {
  assertCacheVisibleInGuest(opts.cacheRoot, repoRoot);
  const { imagePackage, version, release } = await resolveDebianPackage(name);
  const layout = debianKernelLayout(opts.cacheRoot, imagePackage, version);
  const cached = readDebianMeta(layout);
  const sourceHash = injectorSourceHash(
    INJECTOR_SOURCES.map((f) => readFileSync(join(repoRoot, 'lab', 'injector', f), 'utf8')),
  );
  const injectorCurrent =
    cached?.injectorModule != null &&
    cached.injectorSource === sourceHash &&
    existsSync(cached.injectorModule);
  if (cached && (!opts.injector || injectorCurrent)) return cached;
  const started = Date.now();
  let debBytes = cached?.debBytes ?? 0;
  // root/ appears only complete (renamed after unpack and depmod): reuse it when meta is gone.
  const unpacked = existsSync(join(layout.root, 'lib', 'modules', release, 'modules.dep'));
  if (!cached) await ensurePackages({ ...opts, packages: DEBIAN_KERNEL_PACKAGES });
  if (!cached && !unpacked) {
    rmSync(layout.dir, { recursive: true, force: true });
    const dl = join(layout.dir, 'download');
    mkdirSync(dl, { recursive: true });
    opts.progress(`lab: ${name}: apt-get download ${imagePackage} (${version})`);
    await run('apt-get', ['download', `${imagePackage}=${version}`], opts, dl);
    const deb = readdirSync(dl).find((f) => f.endsWith('.deb'));
    if (!deb)
      throw new XrunhuntError('lab', `apt-get download ${imagePackage} left no .deb in ${dl}`);
    debBytes = statSync(join(dl, deb)).size;
    opts.progress(`lab: ${name}: unpacking ${deb} (${(debBytes / 1e6).toFixed(1)} MB)`);
    const tmpRoot = `${layout.root}.part`;
    await run('dpkg-deb', ['-x', join(dl, deb), tmpRoot], opts);
    await run('depmod', ['-b', tmpRoot, release], opts);
    renameSync(tmpRoot, layout.root);
    rmSync(dl, { recursive: true, force: true });
  }
  if (!cached) {
    const ird = buildInitramfs(layout.root, release, `${layout.initrd}.part`);
    renameSync(`${layout.initrd}.part`, layout.initrd);
    opts.progress(
      `lab: ${name}: initramfs ${(ird.bytes / 1e6).toFixed(1)} MB with ${ird.modules.length} modules`,
    );
  }
  let injectorModule: string | null = null;
  if (opts.injector) injectorModule = await buildInjector(layout, release, opts);
  const meta: DebianKernelMeta = {
    name,
    imagePackage,
    version,
    kernelRelease: release,
    bzImage: layout.bzImage,
    initrd: layout.initrd,
    modulesRoot: layout.root,
    injectorModule,
    injectorSource: injectorModule ? sourceHash : null,
    debBytes,
    fetchSeconds: Math.round((Date.now() - started) / 100) / 10 + (cached?.fetchSeconds ?? 0),
    fetchedAt: new Date().toISOString(),
  };
  writeFileSync(layout.meta, JSON.stringify(meta, null, 2) + '\n');
  opts.progress(`lab: ${name}: ${imagePackage} ${version} ready in ${layout.dir}`);
  return meta;
}

// Every Debian kernel unpacked in the cache (for `lab status`).
export function listDebianKernels(cacheRoot: string): DebianKernelMeta[] {
  let names: string[];
  try {
    names = readdirSync(cacheRoot);
  } catch {
    return [];
  }
  const out: DebianKernelMeta[] = [];
  for (const n of names) {
    const m = readDebianMeta({ meta: join(cacheRoot, n, DEBIAN_META_FILENAME) });
    if (m) out.push(m);
  }
  return out;
}
