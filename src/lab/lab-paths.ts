// Where the lab's files are: the cache outside the checkout, the profile fragments and the
// guest init script inside it, the kernel source tarball. Pure apart from module location.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Checkout root (this file is src/lab/lab-paths.ts or dist/lab/lab-paths.js: two levels up). */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Debian's `linux-source-6.1` package (platform-facts §5, 6.1.192). */
export const DEFAULT_KERNEL_SOURCE = '/usr/src/linux-source-6.1.tar.xz';

// The cache root: $XRUNHUNT_LAB_CACHE, else $XDG_CACHE_HOME/xrunhunt/lab, else ~/.cache/xrunhunt/lab.
export function labCacheRoot(env: NodeJS.ProcessEnv, homeDir: string): string {
  if (env['XRUNHUNT_LAB_CACHE']) return env['XRUNHUNT_LAB_CACHE'];
  const base = env['XDG_CACHE_HOME'] || join(homeDir, '.cache');
  return join(base, 'xrunhunt', 'lab');
}

// The kernel source tarball to build from ($XRUNHUNT_LAB_SOURCE overrides the Debian one).
export function kernelSourceTarball(env: NodeJS.ProcessEnv): string {
  return env['XRUNHUNT_LAB_SOURCE'] || DEFAULT_KERNEL_SOURCE;
}

// The config fragment of a profile: lab/kernel/<profile>.config in the checkout.
export function fragmentPath(profile: string, root: string = repoRoot): string {
  return join(root, 'lab', 'kernel', `${profile}.config`);
}

// The guest's PID 1 script (found at the same path in the guest, whose root is the host's `/`).
export function guestInitPath(root: string = repoRoot): string {
  return join(root, 'lab', 'guest', 'init.sh');
}

/** The files of one cached build, inside `<cache>/<key>/`. */
export interface BuildLayout {
  dir: string;
  objDir: string;
  bzImage: string;
  modulesDir: string;
  config: string;
  log: string;
  meta: string;
}

// Names the files of one cached build.
export function buildLayout(cacheRoot: string, key: string): BuildLayout {
  const dir = join(cacheRoot, key);
  return {
    dir,
    objDir: join(dir, 'obj'),
    bzImage: join(dir, 'bzImage'),
    modulesDir: join(dir, 'modules'),
    config: join(dir, 'config'),
    log: join(dir, 'build.log'),
    meta: join(dir, 'meta.json'),
  };
}

// test_lockup.ko inside an installed modules tree.
export function testLockupModule(modulesDir: string, kernelRelease: string): string {
  return join(modulesDir, 'lib', 'modules', kernelRelease, 'kernel', 'lib', 'test_lockup.ko');
}
