// `xrunhunt lab …`: a real kernel with a virtual sound card in QEMU (build, run, exec,
// session, status). The work is in src/lab/; this file maps options to it.
import { homedir } from 'node:os';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runFolderName } from '../../session/session-options.js';
import {
  claimBundleFolder,
  claimedFolderNote,
  releaseEmptyClaim,
} from '../../run/bundle-folder.js';
import type { ClaimedFolder } from '../../run/bundle-folder.js';
import { execFileSync } from 'node:child_process';
import { defineCommand } from '../command.js';
import type { CommandGroup, CommandContext } from '../command.js';
import { writeJson } from '../output.js';
import { UsageError, XrunhuntError } from '../../errors.js';
import { parseDuration, parseInteger, parseSize } from '../../units.js';
import { buildLabKernel, readBuildMeta, resolveLabBuild } from '../../lab/build-kernel.js';
import { labCacheRoot } from '../../lab/lab-paths.js';
import { parseInjectSpec } from '../../lab/inject-spec.js';
import { DEFAULT_LAB_KERNEL, innerXrunhuntArgv, runLab } from '../../lab/lab-runner.js';
import type { PreemptModel } from '../../lab/qemu-command.js';
import type { AccelRequest } from '../../lab/kvm-probe.js';
import { cachedKvmProbe, kvmDeviceStatus } from '../../lab/kvm-probe.js';
import type { GuestCommand } from '../../lab/guest-script.js';
import { describeMismatch } from '../../lab/kernel-config.js';
import { cachedSourceTrees, checkUserKernel } from '../../lab/user-kernel.js';
import {
  SOUND_CARD_NAMES,
  defaultAlsaDevice,
  labDeviceArgs,
  parseSoundCards,
} from '../../lab/sound-cards.js';
import { parsePipewireMode } from '../../lab/guest-pipewire.js';
import { parsePipewireBuildChoice } from '../../lab/pipewire-build.js';
import { isDebianKernelName } from '../../lab/debian-kernel.js';
import { ensureDebianKernel, listDebianKernels } from '../../lab/debian-fetch.js';
import { ensureSoundDebugKernel, listSoundDebugBuilds } from '../../lab/sound-debug-build.js';
import { SOUND_DEBUG_KERNEL } from '../../lab/sound-debug-recipe.js';

const profileOption = {
  type: 'string',
  valueName: 'NAME',
  description:
    'self-built kernel profile: the fragment lab/kernel/NAME.config (debug: the full xrun_debug kernel, 15+ min to compile); without it and --kernel, the lab uses debian-debug',
} as const;

const RUN_OPTIONS = {
  profile: profileOption,
  kernel: {
    type: 'string',
    valueName: 'PATH|debian|debian-rt|debian-debug',
    description:
      "boot this bzImage instead of the cached build (its config is checked), Debian's own kernel (debian, debian-rt: fetched on first use, kprobe capture), or Debian's kernel with its sound modules rebuilt with xrun_debug (debian-debug: built on first use, ~3 min)",
  },
  preempt: {
    type: 'string',
    choices: ['none', 'voluntary', 'full'],
    valueName: 'MODEL',
    description:
      'preemption model: none, voluntary or full (default: voluntary; full with --inject)',
  },
  threadirqs: {
    type: 'boolean',
    description: 'boot with threadirqs (interrupt handlers in threads)',
  },
  card: {
    type: 'string',
    multiple: true,
    valueName: 'NAME',
    choices: SOUND_CARD_NAMES,
    description:
      'sound card: dummy (snd-dummy), hda (Intel HDA), usb (USB audio), ac97 (default: dummy)',
  },
  cpus: { type: 'string', valueName: 'N', default: '2', description: 'guest CPUs' },
  mem: { type: 'string', valueName: 'SIZE', default: '1G', description: 'guest memory (512M, 2G)' },
  timeout: {
    type: 'string',
    valueName: 'DURATION',
    default: '10m',
    description: 'kill the guest after DURATION, boot included (90s, 10m)',
  },
  scratch: {
    type: 'string',
    valueName: 'SIZE',
    // 4G: a disk load keeps 1 GiB free (the load safety floor) and writes up to 1 GiB files;
    // the image is sparse, so the host only pays for what the guest writes.
    default: '4G',
    description: 'fresh ext4 scratch disk at /mnt/scratch for loads (0 for none; 512M, 4G)',
  },
  inject: {
    type: 'string',
    valueName: 'SPEC',
    description:
      'ground-truth offender while the command runs: lockup:<ms>[:irq|:preempt|:softirq]',
  },
  'inject-paused': {
    type: 'boolean',
    description:
      'start the --inject offender paused: the command resumes it with touch "$XRUNHUNT_LAB_INJECT_GO" (rm pauses it)',
  },
  pipewire: {
    type: 'string',
    choices: ['timer', 'irq'],
    valueName: 'MODE',
    description:
      "run PipeWire + WirePlumber + pw-play on the card around the command: timer (desktop default, timer wake-ups) or irq (period interrupts; needs a PipeWire that reads api.alsa.disable-tsched: Debian 12's 0.3.65 always wakes by timer, on every --card, so --pipewire-build auto then runs PipeWire 1.4 from bookworm-backports)",
  },
  'pipewire-build': {
    type: 'string',
    choices: ['auto', 'host', 'backports'],
    valueName: 'WHICH',
    default: 'auto',
    description:
      "which PipeWire --pipewire runs: host (this machine's), backports (PipeWire 1.4 + WirePlumber 0.5 from Debian's bookworm-backports, unpacked into the lab cache, not installed), auto (host for timer, backports for irq when the host's cannot do irq)",
  },
  out: {
    type: 'string',
    valueName: 'DIR',
    description:
      'the results folder (command output files, dmesg.txt; default: ./xrunhunt-lab-<date>-<time>/); one that already holds files gets a new xrunhunt-lab-… subfolder',
  },
  accel: {
    type: 'string',
    choices: ['auto', 'kvm', 'tcg'],
    valueName: 'MODE',
    default: 'auto',
    description: 'auto (KVM only after a test boot works), kvm or tcg',
  },
  console: { type: 'boolean', description: "print the guest's serial console on stderr" },
} as const;

/** `lab session` also takes `--recorder` before `--` and hands it to the session in the guest. */
const SESSION_LAB_OPTIONS = {
  ...RUN_OPTIONS,
  recorder: {
    type: 'string',
    choices: ['off', 'auto', 'on'],
    valueName: 'MODE',
    description:
      'the session\'s flight recorder (same as "session --recorder" after --): off, auto, on',
  },
} as const;

type RunValues = CommandContext<typeof RUN_OPTIONS>['values'];

// Turns the shared run options into a request and boots the lab; returns the exit code.
async function bootWith(
  ctx: CommandContext<typeof RUN_OPTIONS>,
  command: GuestCommand,
): Promise<number> {
  const v: RunValues = ctx.values;
  const preempt = v.preempt;
  if (preempt !== undefined && !['none', 'voluntary', 'full'].includes(preempt)) {
    throw new UsageError(`--preempt must be none, voluntary or full, got "${preempt}"`);
  }
  if (!['auto', 'kvm', 'tcg'].includes(v.accel)) {
    throw new UsageError(`--accel must be auto, kvm or tcg, got "${v.accel}"`);
  }
  const memBytes = parseSize(v.mem, '--mem');
  if (memBytes < 256 * 1024 * 1024)
    throw new UsageError(`--mem must be at least 256M, got "${v.mem}"`);
  const scratchBytes = v.scratch === '0' ? 0 : parseSize(v.scratch, '--scratch');
  if (scratchBytes !== 0 && scratchBytes < 64 * 1024 * 1024) {
    throw new UsageError(
      `--scratch must be 0 or at least 64M (ext4 with a journal), got "${v.scratch}"`,
    );
  }
  if (v['inject-paused'] && v.inject === undefined) {
    throw new UsageError(
      '--inject-paused pauses the --inject offender, and --inject is not given',
      {
        hint: 'add --inject lockup:10:irq (or another lockup spec)',
      },
    );
  }
  if (v.pipewire === undefined && v['pipewire-build'] !== 'auto') {
    throw new UsageError(
      `--pipewire-build ${v['pipewire-build']} chooses which PipeWire --pipewire runs, and --pipewire is not given`,
      { hint: 'add --pipewire timer or --pipewire irq' },
    );
  }
  const results = labResultsFolder(ctx.io.cwd, v.out);
  const note = results.claimed ? claimedFolderNote(results.claimed) : null;
  if (note !== null) ctx.io.stderr.write(`xrunhunt: note: ${note}\n`);
  const result = await runLab({
    ...(v.profile !== undefined ? { profile: v.profile } : {}),
    ...(v.kernel !== undefined ? { kernelPath: v.kernel } : {}),
    command,
    accel: v.accel as AccelRequest,
    cpus: parseInteger(v.cpus, '--cpus', 1, 64),
    memMiB: Math.floor(memBytes / (1024 * 1024)),
    timeoutMs: parseDuration(v.timeout, '--timeout'),
    scratchBytes,
    ...(preempt !== undefined ? { preempt: preempt as PreemptModel } : {}),
    threadirqs: v.threadirqs,
    cards: parseSoundCards(v.card),
    ...(v.inject !== undefined
      ? {
          inject: {
            ...parseInjectSpec(v.inject),
            ...(v['inject-paused'] ? { startPaused: true } : {}),
          },
        }
      : {}),
    ...(v.pipewire !== undefined
      ? {
          pipewire: {
            mode: parsePipewireMode(v.pipewire),
            device: defaultAlsaDevice(parseSoundCards(v.card)),
          },
          pipewireBuild: parsePipewireBuildChoice(v['pipewire-build']),
        }
      : {}),
    ...(results.outDir !== undefined ? { outDir: results.outDir } : {}),
    showConsole: v.console,
    env: ctx.io.env,
    signal: ctx.signal,
    stdout: ctx.io.stdout,
    stderr: ctx.io.stderr,
  }).catch((err: unknown) => {
    // A run refused before the guest started leaves no empty folder of its own behind.
    if (results.claimed) releaseEmptyClaim(results.claimed);
    throw err;
  });
  if (result.interrupted) return 130;
  if (result.exitCode === null) {
    throw new XrunhuntError(
      'lab',
      result.timedOut
        ? `the lab guest did not finish within ${v.timeout} and was killed`
        : 'the lab guest stopped without reporting the command exit code',
      {
        hint: `console log and partial results: ${result.resultsDir}; raise --timeout or see --console`,
      },
    );
  }
  return result.exitCode;
}

/**
 * Where a lab run's results end up: --out, claimed as session/watch/try claim it (a new or
 * empty folder is used, one holding files gets a fresh xrunhunt-lab-… folder inside), else
 * ./xrunhunt-lab-<date>-<time>/ where the user ran it (found again, like a session's folder),
 * else — a folder they cannot write — the temp folder the last `lab:` line names.
 */
function labResultsFolder(
  cwd: string,
  out: string | undefined,
): { outDir?: string; claimed?: ClaimedFolder } {
  if (out !== undefined) {
    const claimed = claimBundleFolder(resolve(cwd, out), runFolderName(new Date(), 'lab'));
    return { outDir: claimed.dir, claimed };
  }
  try {
    accessSync(cwd, constants.W_OK);
  } catch {
    return {};
  }
  return { outDir: join(cwd, runFolderName(new Date(), 'lab')) };
}

const build = defineCommand({
  name: 'lab build',
  summary:
    'build (or reuse) the lab kernel: sound debug options, snd-dummy + HDA/USB/AC97 drivers, 9p root, test_lockup',
  usage:
    'lab build [--kernel debian-debug|debian|debian-rt|PATH] [--profile NAME] [--force] [--json]',
  description: `Without options, makes the lab's default kernel (debian-debug): Debian's own kernel
package, downloaded and unpacked into ~/.cache/xrunhunt/lab/ once per version, with only its sound
modules rebuilt from the same version's linux-source against a copy of its headers with
CONFIG_SND_DEBUG and CONFIG_SND_PCM_XRUN_DEBUG on (xrun_debug on every card), plus test_lockup.ko
for --inject: about 3 minutes on 2 cores, no kernel compile. Missing Debian packages are
installed when run as root. With --kernel debian or debian-rt: Debian's kernel as it is (kprobe
capture), its initramfs and the --inject module built against its headers. With --profile NAME:
Linux compiled from linux-source-6.1 with lab/kernel/NAME.config merged over defconfig +
kvm_guest.config, every requested option checked, cached in <profile>-<hash>/ (15+ minutes on 2
cores the first time). With --kernel PATH nothing is built: the bzImage's config is checked
against the profile (default debug) and missing options are named. Later calls reuse the cache.`,
  examples: [
    'xrunhunt lab build',
    'xrunhunt lab build --kernel ~/linux/arch/x86/boot/bzImage',
    'xrunhunt lab build --kernel debian',
    'xrunhunt lab build --profile debug',
  ],
  options: {
    profile: profileOption,
    kernel: {
      type: 'string',
      valueName: 'PATH|debian|debian-rt|debian-debug',
      description:
        "check a user's bzImage instead of building, fetch Debian's own kernel (debian, debian-rt) with its initramfs and injector, or Debian's kernel with xrun_debug sound modules (debian-debug)",
    },
    force: { type: 'boolean', description: 'rebuild from scratch even when a cached build exists' },
    json: { type: 'boolean', description: 'print the build record as JSON' },
  },
  async run(ctx) {
    const { io, values } = ctx;
    const cacheRoot = labCacheRoot(io.env, homedir());
    const kernel = values.kernel ?? (values.profile === undefined ? DEFAULT_LAB_KERNEL : undefined);
    const profile = values.profile ?? 'debug';
    if (kernel === SOUND_DEBUG_KERNEL) {
      const m = await ensureSoundDebugKernel({
        cacheRoot,
        env: io.env,
        signal: ctx.signal,
        progress: (line) => io.stderr.write(`${line}\n`),
        force: values.force,
      });
      if (values.json) writeJson(io.stdout, m);
      else {
        io.stdout.write(
          `ready: Debian kernel ${m.kernelRelease} (${m.imagePackage} ${m.imageVersion}) with xrun_debug sound modules\n` +
            `  image:       ${m.bzImage}\n  modules:     ${m.modulesRoot} (${m.soundModules} sound modules rebuilt)\n` +
            `  test_lockup: ${m.testLockupModule}\n`,
        );
      }
      return 0;
    }
    if (values.kernel !== undefined && isDebianKernelName(values.kernel)) {
      const m = await ensureDebianKernel(values.kernel, {
        cacheRoot,
        env: io.env,
        signal: ctx.signal,
        progress: (line) => io.stderr.write(`${line}\n`),
        injector: true,
      });
      if (values.json) writeJson(io.stdout, m);
      else {
        io.stdout.write(
          `ready: Debian kernel ${m.kernelRelease} (${m.imagePackage} ${m.version})\n` +
            `  image:    ${m.bzImage}\n  initrd:   ${m.initrd}\n  modules:  ${m.modulesRoot}\n` +
            `  injector: ${m.injectorModule ?? 'none'}\n`,
        );
      }
      return 0;
    }
    if (values.kernel !== undefined) {
      const r = resolveLabBuild(profile, cacheRoot, io.env);
      const check = await checkUserKernel(
        values.kernel,
        r.fragmentText,
        cachedSourceTrees(cacheRoot),
      );
      if (values.json) writeJson(io.stdout, check);
      else if (check.configSource === null) {
        io.stdout.write(
          `${check.bzImage}: no config found (no config file beside it, no IKCONFIG inside)\n`,
        );
      } else if (check.mismatches.length === 0) {
        io.stdout.write(
          `${check.bzImage}: config (${check.configSource}) has every option of the ${profile} profile\n`,
        );
      } else {
        io.stdout.write(
          `${check.bzImage}: config (${check.configSource}) lacks ${check.mismatches.length} option(s) of the ${profile} profile:\n` +
            check.mismatches.map((m) => `  ${describeMismatch(m)}\n`).join(''),
        );
      }
      return check.configSource !== null && check.essentialMissing.length === 0 ? 0 : 1;
    }
    let transient = false;
    const result = await buildLabKernel({
      profile,
      cacheRoot,
      env: io.env,
      force: values.force,
      signal: ctx.signal,
      live: io.stderrIsTTY,
      progress: (line, live) => {
        if (live) {
          io.stderr.write(`\r\x1b[K${line}`);
          transient = true;
        } else {
          if (transient) io.stderr.write('\n');
          transient = false;
          io.stderr.write(`${line}\n`);
        }
      },
    });
    if (transient) io.stderr.write('\n');
    if (values.json)
      writeJson(io.stdout, { built: result.built, ...result.meta, dir: result.layout.dir });
    else {
      const m = result.meta;
      io.stdout.write(
        `${result.built ? 'built' : 'cached'}: lab kernel ${m.kernelRelease} (profile ${m.profile})\n` +
          `  image:   ${m.bzImage}\n  modules: ${m.modulesDir}\n  config:  ${m.config}\n` +
          (result.built ? `  build:   ${m.buildSeconds} s, ${m.objectsCompiled} objects\n` : ''),
      );
    }
    return 0;
  },
});

const run = defineCommand({
  name: 'lab run',
  summary: 'run an xrunhunt command inside the lab kernel (as root, with snd-dummy)',
  usage: 'lab run [options] -- <xrunhunt args>',
  description: `Boots the cached lab kernel in QEMU (KVM when a test boot works, TCG otherwise) with the
host's / as a read-only root, a fresh ext4 scratch disk at /mnt/scratch, and a writable results
folder as the working directory; runs "xrunhunt <args>" inside as root with its output streamed
here, writes the guest's kernel log to dmesg.txt in the results, and exits with the inner
command's exit code. A hung guest is killed after --timeout.`,
  examples: [
    'xrunhunt lab run -- doctor',
    'xrunhunt lab run --inject lockup:10:irq --out lockup-run -- session --phases idle:20s --json',
  ],
  options: RUN_OPTIONS,
  positionals: true,
  async run(ctx) {
    const args = [...ctx.positionals, ...ctx.rest];
    if (args.length === 0)
      throw new UsageError('lab run needs the xrunhunt command to run: xrunhunt lab run -- <args>');
    const device = labDeviceArgs(args, ctx.values.card);
    if (device.length > 0)
      ctx.io.stderr.write(
        `xrunhunt: lab: ${args[0]} plays on the card's own device, ${device[1]} ("default" would go through dmix, whose larger buffer hides the kernel's xruns); pass --device to choose\n`,
      );
    return bootWith(ctx, {
      kind: 'argv',
      argv: innerXrunhuntArgv(device.length > 0 ? [args[0]!, ...device, ...args.slice(1)] : args),
    });
  },
});

const exec = defineCommand({
  name: 'lab exec',
  summary: 'run any shell command line inside the lab kernel',
  usage: 'lab exec [options] -- <shell command>',
  description: `Like "lab run", but the words after -- are a shell command line run by sh -c in the guest
(e.g. aplay, cat /proc/asound/cards, a kernel developer's own test).`,
  examples: [
    "xrunhunt lab exec -- 'cat /proc/asound/cards; uname -r'",
    'xrunhunt lab exec --preempt full -- aplay -D hw:0,0 -d 5 /dev/zero',
  ],
  options: RUN_OPTIONS,
  positionals: true,
  async run(ctx) {
    const words = [...ctx.positionals, ...ctx.rest];
    if (words.length === 0)
      throw new UsageError('lab exec needs a command: xrunhunt lab exec -- <shell command>');
    return bootWith(ctx, { kind: 'shell', line: words.join(' ') });
  },
});

const session = defineCommand({
  name: 'lab session',
  summary: 'a full diagnostic session inside the lab (= lab run -- session <args>)',
  usage: 'lab session [lab options] [-- <session args>]',
  description: `The main job on a machine without a sound card: "xrunhunt session" inside the lab kernel,
ending with the ranked offenders here. Session options go after --; the device defaults to
the first --card's first PCM (hw:CARD=Dummy,DEV=0 for dummy, hw:CARD=Intel,DEV=0 for hda,
hw:CARD=Audio,DEV=0 for usb, hw:CARD=I82801AAICH,DEV=0 for ac97) and the period to auto (idle
probes choose the smallest period that is nearly xrun-free in this guest).`,
  examples: [
    'xrunhunt lab session -- --phases idle:20s,fsync:20s --period 64',
    'xrunhunt lab session --inject lockup:10:irq -- --json',
    'xrunhunt lab session --card hda -- --phases idle:20s --period 128',
    'xrunhunt lab session --kernel debian --card hda --recorder on -- --period 64',
  ],
  options: SESSION_LAB_OPTIONS,
  positionals: true,
  async run(ctx) {
    const args = [...ctx.positionals, ...ctx.rest];
    const given = (name: string): boolean =>
      args.some((a) => a === name || a.startsWith(`${name}=`));
    // The first card's hw device by id; "default" would go through the plug layer.
    const device = labDeviceArgs(['session', ...args], ctx.values.card);
    // Under TCG a fixed small period drops out idle; probe for one that does not.
    const period = given('--period') ? [] : ['--period', 'auto'];
    const recorder =
      ctx.values.recorder === undefined || given('--recorder')
        ? []
        : ['--recorder', ctx.values.recorder];
    return bootWith(ctx, {
      kind: 'argv',
      argv: innerXrunhuntArgv(['session', ...device, ...period, ...recorder, ...args]),
    });
  },
});

const status = defineCommand({
  name: 'lab status',
  summary: 'cache location, built kernels, KVM or TCG',
  usage: 'lab status [--json]',
  options: { json: { type: 'boolean', description: 'print as JSON' } },
  async run(ctx) {
    const { io } = ctx;
    const cacheRoot = labCacheRoot(io.env, homedir());
    const builds = existsSync(cacheRoot)
      ? readdirSync(cacheRoot)
          .map((name) => readBuildMeta(join(cacheRoot, name, 'meta.json')))
          .filter((m) => m !== undefined)
      : [];
    const current = builds.map((m) => {
      let upToDate = false;
      try {
        upToDate = resolveLabBuild(m.profile, cacheRoot, io.env).key === m.key;
      } catch {
        upToDate = false;
      }
      return { ...m, upToDate };
    });
    const kvm = kvmDeviceStatus();
    const probe = cachedKvmProbe(cacheRoot);
    let qemu: string | null = null;
    try {
      qemu = execFileSync('qemu-system-x86_64', ['--version']).toString().split('\n')[0] ?? null;
    } catch {
      qemu = null;
    }
    const accel = !kvm.usable
      ? `TCG (${kvm.reason})`
      : probe
        ? probe.ok
          ? 'KVM (test boot worked)'
          : `TCG (${probe.reason})`
        : 'not probed yet (the next lab run tries a KVM test boot)';
    if (io.stdout && ctx.values.json) {
      writeJson(io.stdout, {
        cacheRoot,
        builds: current,
        debianKernels: listDebianKernels(cacheRoot),
        soundDebugBuilds: listSoundDebugBuilds(cacheRoot),
        kvmDevice: kvm,
        kvmProbe: probe ?? null,
        accel,
        qemu,
      });
      return 0;
    }
    io.stdout.write(
      `cache:  ${cacheRoot}\nqemu:   ${qemu ?? 'not installed (apt-get install qemu-system-x86)'}\naccel:  ${accel}\n`,
    );
    for (const d of listDebianKernels(cacheRoot)) {
      io.stdout.write(
        `debian: --kernel ${d.name}: ${d.imagePackage} ${d.version}${d.injectorModule ? ', xrunhunt_inject.ko' : ''}\n        ${d.bzImage}\n`,
      );
    }
    const soundDebug = listSoundDebugBuilds(cacheRoot);
    for (const d of soundDebug) {
      io.stdout.write(
        `debian-debug: --kernel ${SOUND_DEBUG_KERNEL} (the default): ${d.imagePackage} ${d.imageVersion} with ${d.soundModules} xrun_debug sound modules and test_lockup.ko, built ${d.builtAt} in ${d.buildSeconds} s\n        ${d.modulesRoot}\n`,
      );
    }
    if (current.length === 0 && soundDebug.length === 0)
      io.stdout.write('builds: none (run: xrunhunt lab build)\n');
    for (const m of current) {
      io.stdout.write(
        `build:  ${m.profile} ${m.kernelRelease} ${m.upToDate ? 'current' : 'stale (fragment or source changed)'}, built ${m.builtAt} in ${m.buildSeconds} s${m.testLockupModule ? ', test_lockup.ko' : ''}\n        ${m.bzImage}\n`,
      );
    }
    return 0;
  },
});

const lab: CommandGroup = {
  name: 'lab',
  summary: 'a real kernel with a virtual sound card in QEMU: build, run, exec, session, status',
  description: `The lab boots a Linux kernel built with the kernel's XRUN reporting and the snd-dummy
card, with the host's / as its root, so xrunhunt can find real offenders on machines without
sound hardware, and kernel developers can stress their own builds. See docs/lab.md.`,
  subcommands: [build, run, exec, session, status],
};

export default lab;
