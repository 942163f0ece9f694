// For lab tests on Debian's own kernels (--kernel debian|debian-rt): whether the kernel is
// already fetched (with its injector) — `xrunhunt lab build --kernel NAME` does that, and .ci/run
// runs it first. Outside CI a missing one skips the test; in CI (CI=true) the test runs and
// `lab run` fetches it itself, or fails loudly.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { debianKernelLayout } from '../../src/lab/debian-kernel.js';
import type { DebianKernelName } from '../../src/lab/debian-kernel.js';
import { readDebianMeta, resolveDebianPackage } from '../../src/lab/debian-fetch.js';
import { labCacheRoot } from '../../src/lab/lab-paths.js';

// The `skip` option for node:test: a reason when the kernel is not fetched here, else false.
export async function debianLabSkip(name: DebianKernelName): Promise<string | false> {
  if (process.env['CI'] === 'true') return false;
  try {
    execFileSync('qemu-system-x86_64', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'lab unavailable: qemu-system-x86_64 is not installed';
  }
  try {
    const p = await resolveDebianPackage(name);
    const layout = debianKernelLayout(
      labCacheRoot(process.env, homedir()),
      p.imagePackage,
      p.version,
    );
    const m = readDebianMeta(layout);
    if (m?.injectorModule) return false;
    return `lab unavailable: ${p.imagePackage} ${p.version} is not fetched (run: xrunhunt lab build --kernel ${name})`;
  } catch (err) {
    return `lab unavailable: ${(err as Error).message}`;
  }
}
