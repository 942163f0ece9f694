// For tests that need the lab VM: whether a lab kernel is built, and how to run xrunhunt or a
// shell command inside it (through the real CLI: `xrunhunt lab run|exec`). In CI (CI=true) a
// missing kernel is a failure, not a skip: .ci/run builds it before the tests.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readBuildMeta, resolveLabBuild } from '../../src/lab/build-kernel.js';
import type { LabBuildMeta } from '../../src/lab/build-kernel.js';
import { labCacheRoot } from '../../src/lab/lab-paths.js';
import { listSoundDebugBuilds } from '../../src/lab/sound-debug-build.js';
import { SOUND_DEBUG_KERNEL } from '../../src/lab/sound-debug-recipe.js';
import { innerXrunhuntArgv } from '../../src/lab/lab-runner.js';
import { shellQuote } from '../../src/lab/guest-script.js';
import { runCli } from './cli.js';
import type { CliResult } from './cli.js';

export type LabAvailability = { ok: true; meta?: LabBuildMeta } | { ok: false; reason: string };

/**
 * QEMU and the lab's kernel — the default (debian-debug) when no profile is named, else the
 * built kernel of that self-built profile — or why the lab cannot run here.
 */
export function labAvailable(profile?: string): LabAvailability {
  try {
    execFileSync('qemu-system-x86_64', ['--version'], { stdio: 'ignore' });
  } catch {
    return { ok: false, reason: 'qemu-system-x86_64 is not installed' };
  }
  const cacheRoot = labCacheRoot(process.env, homedir());
  if (profile === undefined) {
    // Any build of the default kernel: `lab run` itself rebuilds one that is out of date.
    return listSoundDebugBuilds(cacheRoot).length > 0
      ? { ok: true }
      : {
          ok: false,
          reason: `no ${SOUND_DEBUG_KERNEL} lab kernel built (run: xrunhunt lab build)`,
        };
  }
  const r = resolveLabBuild(profile, cacheRoot, process.env);
  const meta = readBuildMeta(r.layout.meta);
  if (!meta || !existsSync(meta.bzImage)) {
    return {
      ok: false,
      reason: `no lab kernel built for profile ${profile} (run: xrunhunt lab build --profile ${profile})`,
    };
  }
  return { ok: true, meta };
}

/**
 * The `skip` option for node:test: a reason outside CI when the lab is unavailable, else false
 * (in CI the test runs and fails loudly if the kernel is missing).
 */
export function labSkip(profile?: string): string | false {
  if (process.env['CI'] === 'true') return false;
  const a = labAvailable(profile);
  return a.ok ? false : `lab unavailable: ${a.reason}`;
}

export interface LabRunOptions {
  /**
   * Options for `lab run|exec` itself (e.g. ['--inject', 'lockup:10:irq', '--out', dir]).
   * Without --out the results folder is a temp folder removed after the run.
   */
  labOptions?: string[];
  /** Kill the whole `xrunhunt lab` process after this long (ms); default 5 min. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

// Runs `xrunhunt lab <sub> …`; without an --out of the caller's, the results go to a temp
// folder that is removed afterwards (tests must not leave lab results in /tmp).
async function runLabCli(
  sub: 'run' | 'exec',
  tail: string[],
  opts: LabRunOptions,
): Promise<CliResult> {
  const labOptions = opts.labOptions ?? [];
  const ownOut = !labOptions.some((o) => o === '--out' || o.startsWith('--out='));
  const base = ownOut ? mkdtempSync(join(tmpdir(), 'xrunhunt-labtest-')) : undefined;
  try {
    const started = Date.now();
    const r = await runCli(
      ['lab', sub, ...labOptions, ...(base ? ['--out', join(base, 'results')] : []), '--', ...tail],
      { timeoutMs: opts.timeoutMs ?? 300_000, ...(opts.env ? { env: opts.env } : {}) },
    );
    process.stderr.write(`# ${labTimingLine(labOptions, r.stderr, Date.now() - started)}\n`);
    return r;
  } finally {
    if (base) rmSync(base, { recursive: true, force: true });
  }
}

/**
 * One line per guest for the test log: its shape, the lab's own boot and total, and the host's
 * wall time around `xrunhunt lab` (what the guest costs the suite, so growth is seen).
 */
export function labTimingLine(labOptions: string[], labStderr: string, wallMs: number): string {
  const shape = labOptions.filter(
    (_, i) => labOptions[i - 1] !== '--out' && labOptions[i] !== '--out',
  );
  const end = /boot (\d+\.\d+ s|did not complete), total (\d+\.\d+ s)/.exec(labStderr);
  return `lab guest [${shape.join(' ') || 'default'}]: ${end ? `boot ${end[1]}, guest total ${end[2]}` : 'no lab summary'}, wall ${(wallMs / 1000).toFixed(1)} s`;
}

/** Runs `xrunhunt <args>` inside the lab: `xrunhunt lab run [labOptions] -- <args>`. */
export function runInLab(args: string[], opts: LabRunOptions = {}): Promise<CliResult> {
  return runLabCli('run', args, opts);
}

/** Runs a shell command line inside the lab: `xrunhunt lab exec [labOptions] -- <line>`. */
export function execInLab(line: string, opts: LabRunOptions = {}): Promise<CliResult> {
  return runLabCli('exec', [line], opts);
}

/**
 * The xrunhunt command line a guest script runs (the host's node over the 9p root): the built
 * bin when dist/ is current (`npm test` builds first), else the sources through tsx, which
 * costs ~20 s of start-up per command under TCG. The same choice `lab run` makes.
 */
export const GUEST_XRUNHUNT = innerXrunhuntArgv([]).map(shellQuote).join(' ');

/** Splits a lab script's stdout at its `== name` lines into named sections. */
export function labSections(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of stdout.split(/^== /m).slice(1)) {
    const nl = part.indexOf('\n');
    out.set(part.slice(0, nl).trim(), part.slice(nl + 1));
  }
  return out;
}
