// Makes sure the Debian packages the lab needs are installed: installs them when root,
// otherwise stops with the exact apt-get line. The IO shell around packages.ts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { XrunhuntError } from '../errors.js';
import { LAB_PACKAGES, aptInstallLine, missingPackages } from './packages.js';
import { runLogged } from './process-runner.js';

const execFileP = promisify(execFile);

export interface EnsurePackagesOptions {
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  progress: (line: string) => void;
  packages?: readonly string[];
}

// Lists the lab's packages that dpkg does not report as installed (none on non-Debian hosts).
export async function listMissingPackages(
  packages: readonly string[] = LAB_PACKAGES,
): Promise<string[] | undefined> {
  let stdout: string;
  try {
    ({ stdout } = await execFileP('dpkg-query', ['-W', '-f=${Package} ${Status}\n', ...packages]));
  } catch (err) {
    const out = (err as { stdout?: string; code?: unknown }).stdout;
    // dpkg-query exits 1 when some package is unknown, but still lists the others.
    if (typeof out === 'string' && (err as { code?: unknown }).code === 1) stdout = out;
    else return undefined; // not a Debian system: nothing to check
  }
  return missingPackages(packages, stdout);
}

// Installs missing packages (root) or explains how to (not root).
export async function ensurePackages(opts: EnsurePackagesOptions): Promise<void> {
  const missing = await listMissingPackages(opts.packages);
  if (!missing || missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new XrunhuntError(
      'permission',
      `the lab needs Debian packages that are not installed: ${missing.join(', ')}`,
      {
        hint: `install them with:\n  ${aptInstallLine(missing)}`,
      },
    );
  }
  opts.progress(`installing: apt-get install --no-install-recommends -y ${missing.join(' ')}`);
  const env = { ...opts.env, DEBIAN_FRONTEND: 'noninteractive' };
  let res = await runLogged('apt-get', ['install', '--no-install-recommends', '-y', ...missing], {
    env,
    signal: opts.signal,
  });
  if (res.code !== 0) {
    await runLogged('apt-get', ['update'], { env, signal: opts.signal });
    res = await runLogged('apt-get', ['install', '--no-install-recommends', '-y', ...missing], {
      env,
      signal: opts.signal,
    });
  }
  if (res.code !== 0) {
    throw new XrunhuntError(
      'lab',
      `apt-get could not install ${missing.join(', ')} (exit ${res.code})`,
      {
        hint: `${res.tail.slice(-6).join('\n')}\ntry by hand: ${aptInstallLine(missing)}`,
      },
    );
  }
}
