// `lab build`: the lab kernel from Debian's linux-source, cached by (recipe, profile, fragment,
// source). The IO shell around the pure parts (cache key, config check, progress): it extracts,
// configures, checks, compiles and installs modules, and records what it built in meta.json.
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  copyFileSync,
  readdirSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { cpus } from 'node:os';
import { XrunhuntError } from '../errors.js';
import { kernelSourceId, labCacheKey } from './cache-key.js';
import {
  configMap,
  describeMismatch,
  findConfigMismatches,
  parseKernelConfig,
} from './kernel-config.js';
import type { ConfigMismatch } from './kernel-config.js';
import { applyBuildLine, formatBuildProgress, startPhase } from './build-progress.js';
import type { BuildPhase, BuildProgress } from './build-progress.js';
import { buildLayout, fragmentPath, kernelSourceTarball, testLockupModule } from './lab-paths.js';
import type { BuildLayout } from './lab-paths.js';
import { runLogged } from './process-runner.js';
import type { RunResult } from './process-runner.js';
import { ensurePackages } from './ensure-packages.js';

/** What a finished build recorded (meta.json); `lab run` and `lab status` read it. */
export interface LabBuildMeta {
  profile: string;
  key: string;
  kernelRelease: string;
  sourceId: string;
  sourceTarball: string;
  bzImage: string;
  modulesDir: string;
  /** Absolute path of test_lockup.ko, when the profile builds it. */
  testLockupModule: string | null;
  config: string;
  builtAt: string;
  buildSeconds: number;
  objectsCompiled: number;
}

export interface LabBuildOptions {
  profile: string;
  cacheRoot: string;
  env: NodeJS.ProcessEnv;
  force: boolean;
  signal: AbortSignal;
  /** Progress lines (stderr). */
  progress: (line: string, transient: boolean) => void;
  /** Whether stderr is a terminal (a live status line) or not (a line every 30 s). */
  live: boolean;
}

export interface LabBuildResult {
  meta: LabBuildMeta;
  layout: BuildLayout;
  /** false when a cached build was reused. */
  built: boolean;
}

/** Non-TTY progress: one line this often (a CI log stays readable over a 7–12 min build). */
const QUIET_PROGRESS_MS = 30_000;
/** TTY progress: redraw the status line at most this often. */
const LIVE_PROGRESS_MS = 250;

// Resolves a profile to its fragment text and cache folder without building anything.
export function resolveLabBuild(profile: string, cacheRoot: string, env: NodeJS.ProcessEnv) {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(profile)) {
    throw new XrunhuntError(
      'input',
      `profile names are lower-case words (e.g. debug), got "${profile}"`,
    );
  }
  const fragment = fragmentPath(profile);
  if (!existsSync(fragment)) {
    const known = existsSync(join(fragment, '..'))
      ? readdirSync(join(fragment, '..'))
          .filter((f) => f.endsWith('.config'))
          .map((f) => f.replace(/\.config$/, ''))
      : [];
    throw new XrunhuntError(
      'not-found',
      `no kernel config fragment for profile "${profile}" (looked for ${fragment})`,
      {
        hint: `known profiles: ${known.join(', ') || 'none'}; a profile is a file lab/kernel/<name>.config`,
      },
    );
  }
  const fragmentText = readFileSync(fragment, 'utf8');
  const tarball = kernelSourceTarball(env);
  let st;
  try {
    st = statSync(tarball);
  } catch {
    st = undefined;
  }
  const sourceId = st
    ? kernelSourceId(basename(tarball), st.size, st.mtimeMs)
    : `${basename(tarball)}:missing`;
  const key = labCacheKey({ profile, fragmentText, sourceId });
  return {
    fragment,
    fragmentText,
    tarball,
    sourceId,
    sourceExists: st !== undefined,
    key,
    layout: buildLayout(cacheRoot, key),
  };
}

// Reads a finished build's record, or undefined when there is none (or it is unreadable).
export function readBuildMeta(metaFile: string): LabBuildMeta | undefined {
  try {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as LabBuildMeta;
    return existsSync(meta.bzImage) ? meta : undefined;
  } catch {
    return undefined;
  }
}

// Builds (or reuses) the lab kernel of one profile.
export async function buildLabKernel(opts: LabBuildOptions): Promise<LabBuildResult> {
  const r = resolveLabBuild(opts.profile, opts.cacheRoot, opts.env);
  const { layout } = r;
  if (!opts.force) {
    const meta = readBuildMeta(layout.meta);
    if (meta) return { meta, layout, built: false };
  }
  const started = Date.now();
  let state: BuildProgress = startPhase('packages');
  let lastShown = 0;
  const show = (force: boolean) => {
    const now = Date.now();
    const every = opts.live ? LIVE_PROGRESS_MS : QUIET_PROGRESS_MS;
    if (!force && now - lastShown < every) return;
    lastShown = now;
    opts.progress(
      `lab build (${opts.profile}) ${formatBuildProgress(state, now - started)}`,
      opts.live,
    );
  };
  const phase = (p: BuildPhase) => {
    state = startPhase(p, state);
    show(true);
  };

  phase('packages');
  await ensurePackages({
    env: opts.env,
    signal: opts.signal,
    progress: (l) => opts.progress(l, false),
  });
  if (!r.sourceExists) {
    throw new XrunhuntError('not-found', `kernel source ${r.tarball} does not exist`, {
      hint: 'install it with: sudo apt-get install linux-source-6.1 (or set XRUNHUNT_LAB_SOURCE to a linux-*.tar.xz)',
    });
  }

  if (opts.force) rmSync(layout.dir, { recursive: true, force: true });
  mkdirSync(layout.objDir, { recursive: true });
  rmSync(layout.meta, { force: true });
  const log = createWriteStream(layout.log, { flags: 'a' });
  log.write(`\n=== xrunhunt lab build ${opts.profile} ${new Date().toISOString()} key ${r.key}\n`);
  const step = async (
    what: string,
    cmd: string,
    args: string[],
    cwd: string,
    extraEnv: NodeJS.ProcessEnv = {},
  ): Promise<RunResult> => {
    log.write(`\n$ (cd ${cwd} && ${cmd} ${args.join(' ')})\n`);
    const res = await runLogged(cmd, args, {
      cwd,
      env: { ...opts.env, ...extraEnv },
      log,
      signal: opts.signal,
      onLine: (line) => {
        state = applyBuildLine(state, line);
        show(false);
      },
    });
    if (opts.signal.aborted)
      throw new XrunhuntError('interrupted', `lab build stopped during ${what}`);
    if (res.code !== 0) {
      throw new XrunhuntError(
        'lab',
        `lab build failed during ${what} (${cmd} exited with ${res.code ?? res.signal})`,
        {
          hint: `last lines:\n${res.tail.slice(-12).join('\n')}\nfull log: ${layout.log}`,
        },
      );
    }
    return res;
  };

  try {
    phase('extract');
    const srcTree = await ensureSource(r.tarball, r.sourceId, opts.cacheRoot, step);

    phase('configure');
    writeFileSync(join(layout.dir, 'fragment.config'), r.fragmentText);
    await step('configure (defconfig)', 'make', [`O=${layout.objDir}`, 'defconfig'], srcTree);
    await step(
      'configure (merge_config.sh)',
      join(srcTree, 'scripts', 'kconfig', 'merge_config.sh'),
      [
        '-m',
        '-O',
        layout.objDir,
        join(layout.objDir, '.config'),
        join(srcTree, 'kernel', 'configs', 'kvm_guest.config'),
        join(layout.dir, 'fragment.config'),
      ],
      layout.objDir,
    );
    await step('configure (olddefconfig)', 'make', [`O=${layout.objDir}`, 'olddefconfig'], srcTree);

    phase('check');
    const mismatches = checkBuiltConfig(
      r.fragmentText,
      readFileSync(join(layout.objDir, '.config'), 'utf8'),
    );
    if (mismatches.length > 0) {
      throw new XrunhuntError(
        'lab',
        `the kernel configuration dropped ${mismatches.length} option(s) the ${opts.profile} profile asks for: ${mismatches.map(describeMismatch).join(', ')}`,
        {
          hint: `an option is dropped when one of its dependencies is off; fix ${r.fragment} (log: ${layout.log})`,
        },
      );
    }

    phase('compile');
    const jobs = String(Math.max(1, cpus().length));
    await step(
      'compile',
      'make',
      [`O=${layout.objDir}`, `-j${jobs}`, 'bzImage', 'modules'],
      srcTree,
    );

    phase('install');
    rmSync(layout.modulesDir, { recursive: true, force: true });
    await step(
      'modules_install',
      'make',
      [`O=${layout.objDir}`, `INSTALL_MOD_PATH=${layout.modulesDir}`, 'modules_install'],
      srcTree,
    );
    copyFileSync(join(layout.objDir, 'arch', 'x86', 'boot', 'bzImage'), layout.bzImage);
    copyFileSync(join(layout.objDir, '.config'), layout.config);
    const kernelRelease = readFileSync(
      join(layout.objDir, 'include', 'config', 'kernel.release'),
      'utf8',
    ).trim();
    const lockup = testLockupModule(layout.modulesDir, kernelRelease);
    const meta: LabBuildMeta = {
      profile: opts.profile,
      key: r.key,
      kernelRelease,
      sourceId: r.sourceId,
      sourceTarball: r.tarball,
      bzImage: layout.bzImage,
      modulesDir: layout.modulesDir,
      testLockupModule: existsSync(lockup) ? lockup : null,
      config: layout.config,
      builtAt: new Date().toISOString(),
      buildSeconds: Math.round((Date.now() - started) / 1000),
      objectsCompiled: state.objects,
    };
    writeFileSync(layout.meta, JSON.stringify(meta, null, 2) + '\n');
    phase('done');
    return { meta, layout, built: true };
  } finally {
    log.end();
  }
}

// Compares a final .config with the fragment it was asked to honour.
export function checkBuiltConfig(fragmentText: string, finalConfigText: string): ConfigMismatch[] {
  return findConfigMismatches(
    parseKernelConfig(fragmentText),
    configMap(parseKernelConfig(finalConfigText)),
  );
}

type Step = (what: string, cmd: string, args: string[], cwd: string) => Promise<RunResult>;

// Extracts the source once per source version (shared by all profiles), atomically: a half
// extracted tree from an interrupted run is never used.
async function ensureSource(
  tarball: string,
  sourceId: string,
  cacheRoot: string,
  step: Step,
): Promise<string> {
  const id = createHash('sha256').update(sourceId).digest('hex').slice(0, 16);
  const dir = join(cacheRoot, 'source', id);
  if (!existsSync(join(dir, '.complete'))) {
    const tmp = `${dir}.partial-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    await step('extract', 'tar', ['-xf', tarball, '-C', tmp], tmp);
    writeFileSync(join(tmp, '.complete'), `${sourceId}\n`);
    renameSync(tmp, dir);
  }
  const top = readdirSync(dir).filter(
    (n) => !n.startsWith('.') && statSync(join(dir, n)).isDirectory(),
  );
  if (top.length !== 1) {
    throw new XrunhuntError(
      'lab',
      `expected one top folder in the extracted kernel source ${dir}, found ${top.length}`,
      {
        hint: `remove ${dir} and run xrunhunt lab build again`,
      },
    );
  }
  return join(dir, top[0]!);
}
