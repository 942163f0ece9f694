// `lab run` / `lab exec`: boot the lab kernel in QEMU with the host's `/` as a read-only root,
// run one command inside as root, stream its stdout/stderr live, collect the results folder
// (its output files, the guest's kernel log), and tear everything down (also on a hang, a
// timeout or Ctrl-C). The IO shell around qemu-command.ts and guest-script.ts.
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
  closeSync,
  openSync,
  ftruncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { XrunhuntError } from '../errors.js';
import { formatDuration } from '../units.js';
import { qemuArgs } from './qemu-command.js';
import type { SoundCardName } from './sound-cards.js';
import { cardRegisterWaitLines, DEFAULT_SOUND_CARD } from './sound-cards.js';
import type { Accel, PreemptModel } from './qemu-command.js';
import { GUEST_CONTROL_DIRNAME, GUEST_WORK_DIR, renderRunScript } from './guest-script.js';
import { guestPathRewriter } from './guest-path-rewrite.js';
import type { GuestCommand } from './guest-script.js';
import type { LockupInjection } from './inject-spec.js';
import type { GuestPipewireOptions } from './guest-pipewire.js';
import { guestInitPath } from './lab-paths.js';
import { runLogged } from './process-runner.js';
import { tailFile } from './file-tail.js';

export interface GuestKernel {
  bzImage: string;
  /** test_lockup.ko of this kernel, needed for --inject. */
  testLockupModule: string | null;
  kernelRelease?: string;
  /** The initramfs to boot with (Debian's kernels). */
  initrd?: string;
  /** Extra kernel command line arguments. */
  kernelArgs?: string[];
  /** Lines of <results>/.lab/modules.sh, run by the guest's init before the payload. */
  modulesScript?: string[];
}

export interface GuestRunOptions {
  kernel: GuestKernel;
  command: GuestCommand;
  accel: Accel;
  cpus: number;
  memMiB: number;
  /** Kill the guest after this long (ms), boot included. */
  timeoutMs: number;
  /** Size of the fresh ext4 scratch disk in bytes (0: none). */
  scratchBytes: number;
  preempt: PreemptModel;
  threadirqs: boolean;
  /** Emulated sound cards (qemu-command.ts BootPlan.cards). */
  cards?: readonly SoundCardName[];
  inject?: LockupInjection;
  /** PipeWire + WirePlumber + pw-play in the guest around the command. */
  pipewire?: GuestPipewireOptions;
  /** Where the results folder ends up; undefined keeps it in its temp folder. */
  outDir?: string;
  signal: AbortSignal;
  /** The inner command's streams (the host's stdout/stderr). */
  stdout: Writable;
  stderr: Writable;
  /** The lab's own diagnostics (stderr). */
  note: (line: string) => void;
  qemuBinary?: string;
  /** Print the guest's serial console (kernel and init messages) to `note` as it arrives. */
  showConsole?: boolean;
}

export interface GuestRunResult {
  /** The inner command's exit code; null when the guest never reported one. */
  exitCode: number | null;
  accel: Accel;
  timedOut: boolean;
  interrupted: boolean;
  /** From QEMU start until the guest's init started the payload (ms); null if it never did. */
  bootMs: number | null;
  totalMs: number;
  resultsDir: string;
  /** The last lines of the serial console, for error messages. */
  consoleTail: string[];
}

/** Marker lines lab/guest/init.sh prints on the serial console. */
const PAYLOAD_START = 'xrunhunt-lab: payload start';
/**
 * mkfs.ext4 initialises inode tables and the journal up front, so the guest's ext4lazyinit
 * thread does not add its own writes to the measured load.
 */
const MKFS_EXTENDED = 'lazy_itable_init=0,lazy_journal_init=0';
/** After SIGTERM, QEMU gets this long before SIGKILL. */
const KILL_GRACE_MS = 3000;

// Boots the guest, runs the command, returns its exit code and where the results are.
export async function runInGuest(opts: GuestRunOptions): Promise<GuestRunResult> {
  if (!existsSync(opts.kernel.bzImage)) {
    throw new XrunhuntError('not-found', `lab kernel image ${opts.kernel.bzImage} does not exist`, {
      hint: 'build it with: xrunhunt lab build',
    });
  }
  if (opts.inject && !opts.kernel.testLockupModule) {
    throw new XrunhuntError(
      'unsupported',
      '--inject needs test_lockup.ko, and this lab kernel has none',
      {
        hint: 'use the default lab kernel (xrunhunt lab build; debian-debug builds test_lockup.ko) or the debug profile (--profile debug, CONFIG_TEST_LOCKUP=m)',
      },
    );
  }
  if (guestInitPath().startsWith('/mnt/')) {
    throw new XrunhuntError(
      'unsupported',
      `the lab cannot run from a checkout under /mnt (${guestInitPath()})`,
      {
        hint: 'the guest mounts its results and scratch folders under /mnt; move or clone the checkout elsewhere',
      },
    );
  }
  const outDir = opts.outDir === undefined ? undefined : resolve(opts.outDir);
  if (outDir && existsSync(outDir) && readdirSync(outDir).length > 0) {
    throw new XrunhuntError('input', `--out ${outDir} exists and is not empty`, {
      hint: 'name a new or empty folder; lab results are never merged into old ones',
    });
  }
  const work = mkdtempSync(join(tmpdir(), 'xrunhunt-lab-'));
  const results = join(work, 'results');
  const control = join(results, GUEST_CONTROL_DIRNAME);
  mkdirSync(control, { recursive: true });
  const stdoutFile = join(work, 'guest-stdout');
  const stderrFile = join(work, 'guest-stderr');
  writeFileSync(stdoutFile, '');
  writeFileSync(stderrFile, '');
  writeFileSync(
    join(control, 'run.sh'),
    renderRunScript({
      command: opts.command,
      ...(opts.inject
        ? { inject: { spec: opts.inject, modulePath: opts.kernel.testLockupModule! }, pinCpu: 0 }
        : {}),
      ...(opts.pipewire ? { pipewire: opts.pipewire } : {}),
    }),
  );
  writeFileSync(
    join(control, 'modules.sh'),
    [
      ...(opts.kernel.modulesScript ?? ['#!/bin/sh']),
      ...cardRegisterWaitLines(opts.cards ?? [DEFAULT_SOUND_CARD]),
      '',
    ].join('\n'),
  );
  const scratch = opts.scratchBytes > 0 ? join(work, 'scratch.img') : undefined;
  const started = Date.now();
  const consoleLines: string[] = [];
  let bootMs: number | null = null;
  let timedOut = false;
  let interrupted = false;
  let qemuPid: number | null = null;
  try {
    if (scratch) await makeScratchImage(scratch, opts.scratchBytes, opts.signal);
    const args = qemuArgs({
      accel: opts.accel,
      cpus: opts.cpus,
      memMiB: opts.memMiB,
      kernelImage: opts.kernel.bzImage,
      ...(opts.kernel.initrd ? { initrd: opts.kernel.initrd } : {}),
      ...(opts.kernel.kernelArgs ? { extraKernelArgs: opts.kernel.kernelArgs } : {}),
      initPath: guestInitPath(),
      preempt: opts.preempt,
      threadirqs: opts.threadirqs,
      resultsDir: results,
      ...(scratch ? { scratchImage: scratch } : {}),
      stdoutFile,
      stderrFile,
      ...(opts.cards ? { cards: opts.cards } : {}),
    });
    const qemu = opts.qemuBinary ?? 'qemu-system-x86_64';
    writeFileSync(join(control, 'qemu-args.json'), JSON.stringify([qemu, ...args], null, 2) + '\n');
    // The guest's paths under its work folder name the host copy the run ends with.
    const hostResults = outDir ?? results;
    const outTail = tailFile(
      stdoutFile,
      opts.stdout,
      guestPathRewriter(GUEST_WORK_DIR, hostResults),
    );
    const errTail = tailFile(
      stderrFile,
      opts.stderr,
      guestPathRewriter(GUEST_WORK_DIR, hostResults),
    );
    const qemuStart = Date.now();
    try {
      await new Promise<void>((resolveRun, rejectRun) => {
        const child = spawn(qemu, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        qemuPid = child.pid ?? null;
        let partial = '';
        const onConsole = (d: Buffer) => {
          const text = partial + d.toString().replace(/\r/g, '');
          const lines = text.split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) {
            consoleLines.push(line);
            if (consoleLines.length > 200) consoleLines.shift();
            if (bootMs === null && line.includes(PAYLOAD_START)) bootMs = Date.now() - qemuStart;
            if (opts.showConsole) opts.note(`console: ${line}`);
          }
        };
        child.stdout.on('data', onConsole);
        child.stderr.on('data', onConsole);
        let killTimer: NodeJS.Timeout | undefined;
        const stop = () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
        };
        const timer = setTimeout(() => {
          timedOut = true;
          stop();
        }, opts.timeoutMs);
        const onAbort = () => {
          interrupted = true;
          stop();
        };
        opts.signal.addEventListener('abort', onAbort, { once: true });
        if (opts.signal.aborted) onAbort();
        child.on('error', (err) => {
          clearTimeout(timer);
          opts.signal.removeEventListener('abort', onAbort);
          rejectRun(
            new XrunhuntError('not-found', `cannot start ${qemu}: ${err.message}`, {
              hint: 'install QEMU: sudo apt-get install --no-install-recommends -y qemu-system-x86',
              cause: err,
            }),
          );
        });
        child.on('close', () => {
          clearTimeout(timer);
          if (killTimer) clearTimeout(killTimer);
          opts.signal.removeEventListener('abort', onAbort);
          if (partial) consoleLines.push(partial);
          resolveRun();
        });
      });
    } finally {
      outTail.stop();
      errTail.stop();
    }
    const totalMs = Date.now() - started;
    writeFileSync(join(results, 'lab-console.log'), consoleLines.join('\n') + '\n');
    const exitFile = join(control, 'exit-code');
    const exitCode = existsSync(exitFile)
      ? Number.parseInt(readFileSync(exitFile, 'utf8').trim(), 10)
      : null;
    writeFileSync(
      join(results, 'lab-run.json'),
      JSON.stringify(
        {
          kernel: opts.kernel,
          accel: opts.accel,
          cpus: opts.cpus,
          memMiB: opts.memMiB,
          preempt: opts.preempt,
          threadirqs: opts.threadirqs,
          inject: opts.inject ?? null,
          pipewire: opts.pipewire ?? null,
          command: opts.command,
          exitCode: Number.isNaN(exitCode) ? null : exitCode,
          timedOut,
          interrupted,
          // For callers (and tests) checking that nothing was left running or lying around.
          qemuPid,
          workDir: work,
          bootMs,
          totalMs,
        },
        null,
        2,
      ) + '\n',
    );
    rmSync(control, { recursive: true, force: true });
    let finalResults = results;
    if (outDir) {
      mkdirSync(join(outDir, '..'), { recursive: true });
      // The folder is new or was empty at the start (checked above; the CLI claims it). Only
      // an empty one is replaced: whatever appeared in it during the run is kept, and the
      // results are copied beside it without replacing any of it.
      try {
        rmdirSync(outDir);
      } catch {
        // missing (fine) or no longer empty (the copy below keeps what is there)
      }
      try {
        renameSync(results, outDir);
      } catch {
        cpSync(results, outDir, { recursive: true, force: false });
      }
      finalResults = outDir;
      rmSync(work, { recursive: true, force: true });
    }
    return {
      exitCode: exitCode === null || Number.isNaN(exitCode) ? null : exitCode,
      accel: opts.accel,
      timedOut,
      interrupted,
      bootMs,
      totalMs,
      resultsDir: finalResults,
      consoleTail: consoleLines.slice(-30),
    };
  } finally {
    if (scratch) rmSync(scratch, { force: true });
    rmSync(stdoutFile, { force: true });
    rmSync(stderrFile, { force: true });
  }
}

// Creates a fresh sparse ext4 image for the guest's load (removed after the run).
async function makeScratchImage(path: string, bytes: number, signal: AbortSignal): Promise<void> {
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  const res = await runLogged(
    'mkfs.ext4',
    ['-q', '-F', '-E', MKFS_EXTENDED, '-L', 'xrscratch', path],
    { signal },
  );
  if (res.code !== 0) {
    throw new XrunhuntError(
      'lab',
      `mkfs.ext4 could not format the scratch image (exit ${res.code ?? res.signal})`,
      {
        hint: `${res.tail.slice(-4).join('\n')}\ninstall e2fsprogs, or run with --scratch 0 for no scratch disk`,
      },
    );
  }
}

// One line that says how a run ended, for stderr.
export function describeGuestEnd(r: GuestRunResult, timeoutMs: number): string {
  if (r.timedOut)
    return `lab: the guest did not finish within ${formatDuration(timeoutMs)} and was killed`;
  if (r.interrupted) return 'lab: stopped; the guest was shut down';
  if (r.exitCode === null)
    return 'lab: the guest ended without reporting an exit code (kernel panic or init failure)';
  return `lab: inner command exited with ${r.exitCode}`;
}
