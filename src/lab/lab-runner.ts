// What `lab run`, `lab exec` and `lab session` share: pick the kernel (cached build of a
// profile, or the user's --kernel), check it, choose the accelerator, boot, report how it went.
// Also the argv that starts this same xrunhunt inside the guest.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Writable } from 'node:stream';
import { XrunhuntError } from '../errors.js';
import { readBuildMeta, resolveLabBuild } from './build-kernel.js';
import { describeMismatch } from './kernel-config.js';
import { chooseAccel } from './kvm-probe.js';
import type { AccelRequest } from './kvm-probe.js';
import { labCacheRoot, repoRoot } from './lab-paths.js';
import type { PreemptModel } from './qemu-command.js';
import { describeGuestEnd, runInGuest } from './run-guest.js';
import { ensurePackages } from './ensure-packages.js';
import { BUNDLED_CLI, bundleIsCurrent, distIsCurrent } from './dist-freshness.js';
import { LAB_PIPEWIRE_PACKAGES } from './packages.js';
import { withPipewireBuild } from './pipewire-build-fetch.js';
import type { PipewireBuildChoice } from './pipewire-build.js';
import type { GuestKernel, GuestRunResult } from './run-guest.js';
import type { GuestCommand } from './guest-script.js';
import type { LockupInjection } from './inject-spec.js';
import type { GuestPipewireOptions } from './guest-pipewire.js';
import { cachedSourceTrees, checkUserKernel } from './user-kernel.js';
import { DEFAULT_SOUND_CARD } from './sound-cards.js';
import type { SoundCardName } from './sound-cards.js';
import { checkCardDrivers } from './sound-cards-check.js';
import { isDebianKernelName } from './debian-kernel.js';
import { ensureDebianKernel } from './debian-fetch.js';
import { loadSoundModules } from './debian-modules.js';
import { ensureSoundDebugKernel } from './sound-debug-build.js';
import { SOUND_DEBUG_KERNEL, soundDebugModulesScript } from './sound-debug-recipe.js';

export interface LabRunRequest {
  /** A self-built profile (`--profile`); with neither it nor kernelPath, DEFAULT_LAB_KERNEL. */
  profile?: string;
  kernelPath?: string;
  command: GuestCommand;
  accel: AccelRequest;
  cpus: number;
  memMiB: number;
  timeoutMs: number;
  scratchBytes: number;
  preempt?: PreemptModel;
  threadirqs: boolean;
  /** Sound cards to attach (`--card`); snd-dummy alone when absent. */
  cards?: readonly SoundCardName[];
  inject?: LockupInjection;
  pipewire?: GuestPipewireOptions;
  /** Which PipeWire the guest runs (`--pipewire-build`; default auto). */
  pipewireBuild?: PipewireBuildChoice;
  outDir?: string;
  showConsole: boolean;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  stdout: Writable;
  stderr: Writable;
}

// The command that runs this same xrunhunt in the guest (same checkout path: `/` is shared):
// the bundled CLI when it is current, else the built bin, or the sources through tsx when the
// host runs from sources and dist/ is older than them. Under TCG a start of the sources costs
// ~20 s (tsx compiling), of dist/ 5–25 s (resolving and linking ~400 modules over 9p), of the
// bundle a quarter of dist's; and again for every load worker and playback thread.
export function innerXrunhuntArgv(args: string[]): string[] {
  const fromSources = fileURLToPath(import.meta.url).endsWith('.ts');
  if (fromSources && !distIsCurrent(repoRoot)) {
    return [
      process.execPath,
      '--import',
      import.meta.resolve('tsx'),
      join(repoRoot, 'src', 'cli', 'main.ts'),
      ...args,
    ];
  }
  if (bundleIsCurrent(repoRoot)) return [process.execPath, join(repoRoot, BUNDLED_CLI), ...args];
  return [process.execPath, join(repoRoot, 'bin', 'xrunhunt.js'), ...args];
}

/**
 * What the lab boots when neither --kernel nor --profile is given: Debian's kernel with its sound
 * modules rebuilt with xrun_debug (about 3 min to build from empty caches, against 15+ for the
 * self-built debug profile, which `--profile debug` still boots).
 */
export const DEFAULT_LAB_KERNEL = SOUND_DEBUG_KERNEL;

/**
 * A Debian kernel booted with a module root of ours (debian-debug, debian, debian-rt): the
 * guest's init points modprobe at it and runs `modulesScript` before the payload.
 */
function moduleRootKernel(
  m: { bzImage: string; kernelRelease: string; initrd: string; modulesRoot: string },
  lockupModule: string | null,
  modulesScript: string[],
): GuestKernel {
  return {
    bzImage: m.bzImage,
    testLockupModule: lockupModule,
    kernelRelease: m.kernelRelease,
    initrd: m.initrd,
    kernelArgs: [`xrunhunt.modroot=${m.modulesRoot}`],
    modulesScript,
  };
}

// Finds the kernel to boot: Debian's (--kernel debian|debian-rt|debian-debug, made on first
// use), the user's --kernel PATH, the cached build of --profile, else DEFAULT_LAB_KERNEL.
export async function resolveGuestKernel(
  profileOrDefault: string | undefined,
  kernelPathGiven: string | undefined,
  env: NodeJS.ProcessEnv,
  note: (line: string) => void,
  opts: { injector?: boolean; signal?: AbortSignal; cards?: readonly SoundCardName[] } = {},
): Promise<GuestKernel> {
  const cacheRoot = labCacheRoot(env, homedir());
  const kernelPath =
    kernelPathGiven ?? (profileOrDefault === undefined ? DEFAULT_LAB_KERNEL : undefined);
  const profile = profileOrDefault ?? 'debug';
  if (kernelPath === SOUND_DEBUG_KERNEL) {
    const m = await ensureSoundDebugKernel({
      cacheRoot,
      env,
      signal: opts.signal ?? new AbortController().signal,
      progress: note,
    });
    return moduleRootKernel(
      m,
      m.testLockupModule,
      soundDebugModulesScript(opts.cards ?? [DEFAULT_SOUND_CARD]),
    );
  }
  if (kernelPath !== undefined && isDebianKernelName(kernelPath)) {
    const m = await ensureDebianKernel(kernelPath, {
      cacheRoot,
      env,
      signal: opts.signal ?? new AbortController().signal,
      progress: note,
      injector: opts.injector ?? false,
    });
    return moduleRootKernel(
      m,
      m.injectorModule,
      loadSoundModules(opts.cards ?? [DEFAULT_SOUND_CARD]),
    );
  }
  const r = resolveLabBuild(profile, cacheRoot, env);
  if (kernelPath !== undefined) {
    const check = await checkUserKernel(kernelPath, r.fragmentText, cachedSourceTrees(cacheRoot));
    if (check.configSource === null) {
      note(
        `lab: no config found for ${check.bzImage} (no config file beside it, no IKCONFIG); booting it unchecked`,
      );
    } else if (check.essentialMissing.length > 0) {
      throw new XrunhuntError(
        'unsupported',
        `--kernel ${check.bzImage} lacks options the lab needs: ${check.essentialMissing.map(describeMismatch).join(', ')}`,
        {
          hint: `config read from ${check.configSource}; rebuild with lab/kernel/${profile}.config merged in`,
        },
      );
    } else if (check.mismatches.length > 0) {
      note(
        `lab: --kernel differs from the ${profile} profile in: ${check.mismatches.map(describeMismatch).join(', ')}`,
      );
    }
    return { bzImage: check.bzImage, testLockupModule: null };
  }
  const meta = readBuildMeta(r.layout.meta);
  if (!meta) {
    throw new XrunhuntError(
      'not-found',
      `no lab kernel is built for profile "${profile}" (looked in ${r.layout.dir})`,
      {
        hint: `build it first (a whole kernel: 15+ min on 2 cores): xrunhunt lab build --profile ${profile}, or leave out --profile for the default kernel (debian-debug, ~3 min)`,
      },
    );
  }
  return {
    bzImage: meta.bzImage,
    testLockupModule: meta.testLockupModule,
    kernelRelease: meta.kernelRelease,
  };
}

// Boots the lab for one command and returns how it ended; notes go to stderr.
export async function runLab(req: LabRunRequest): Promise<GuestRunResult> {
  const note = (line: string) => req.stderr.write(`${line}\n`);
  const kernel = await resolveGuestKernel(req.profile, req.kernelPath, req.env, note, {
    injector: req.inject !== undefined,
    signal: req.signal,
    ...(req.cards ? { cards: req.cards } : {}),
  });
  // The guest runs the host's programs: PipeWire must be installed here (the backports tree
  // uses the host's libraries too).
  let pipewire = req.pipewire;
  if (req.pipewire) {
    await ensurePackages({
      env: req.env,
      signal: req.signal,
      progress: (line) => note(`lab: ${line}`),
      packages: LAB_PIPEWIRE_PACKAGES,
    });
    pipewire = await withPipewireBuild(
      req.pipewire,
      req.pipewireBuild ?? 'auto',
      req.cards ?? [DEFAULT_SOUND_CARD],
      {
        cacheRoot: labCacheRoot(req.env, homedir()),
        env: req.env,
        signal: req.signal,
        progress: note,
      },
    );
  }
  const cacheRoot = labCacheRoot(req.env, homedir());
  const cards = req.cards ?? [DEFAULT_SOUND_CARD];
  const cardCheck = checkCardDrivers(cards, kernel.bzImage, undefined);
  if (cardCheck.configSource === null && cards.some((c) => c !== DEFAULT_SOUND_CARD)) {
    note(
      `lab: no config beside ${kernel.bzImage}: the drivers of --card ${cards.join(',')} are unchecked`,
    );
  }
  let preempt = req.preempt;
  if (req.inject) {
    if (preempt === undefined) preempt = 'full';
    else if (preempt !== 'full') {
      note(
        `lab: warning: --inject under preempt=${preempt}: test_lockup's busy cooldown can starve the co-pinned player (platform-facts §5a); preempt=full is the measured recipe`,
      );
    }
  }
  const choice = await chooseAccel(req.accel, kernel, cacheRoot, req.signal);
  note(
    `lab: ${choice.reason}; booting ${kernel.kernelRelease ?? kernel.bzImage} (${req.cpus} CPUs, ${req.memMiB} MiB, preempt=${preempt ?? 'voluntary'}${req.threadirqs ? ', threadirqs' : ''}, card ${cards.join('+')}${req.inject ? `, inject lockup ${req.inject.sectionMs} ms ${req.inject.mode}` : ''}${pipewire ? `, PipeWire ${pipewire.tree ? `${pipewire.tree.pipewireVersion} ` : ''}${pipewire.mode} mode on ${pipewire.device}` : ''})`,
  );
  const result = await runInGuest({
    kernel,
    command: req.command,
    accel: choice.accel,
    cpus: req.cpus,
    memMiB: req.memMiB,
    timeoutMs: req.timeoutMs,
    scratchBytes: req.scratchBytes,
    preempt: preempt ?? 'voluntary',
    threadirqs: req.threadirqs,
    cards,
    ...(req.inject ? { inject: req.inject } : {}),
    ...(pipewire ? { pipewire } : {}),
    ...(req.outDir ? { outDir: req.outDir } : {}),
    signal: req.signal,
    stdout: req.stdout,
    stderr: req.stderr,
    note,
    showConsole: req.showConsole,
  });
  note(
    `${describeGuestEnd(result, req.timeoutMs)}; boot ${result.bootMs === null ? 'did not complete' : `${(result.bootMs / 1000).toFixed(1)} s`}, total ${(result.totalMs / 1000).toFixed(1)} s (${result.accel.toUpperCase()}); results in ${result.resultsDir}`,
  );
  if (result.exitCode === null && !result.interrupted) {
    note(`lab: last console lines:\n${result.consoleTail.map((l) => `  ${l}`).join('\n')}`);
  }
  return result;
}
