// Writes the initramfs of one unpacked Debian kernel: resolves the modules from its modules.dep,
// reads them, busybox-static and lab/initramfs/init, and writes the cpio archive. The IO shell
// around initramfs.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import {
  INITRAMFS_MODULES,
  encodeCpioNewc,
  initramfsEntries,
  moduleLoadOrder,
  parseModulesDep,
} from './initramfs.js';
import { repoRoot } from './lab-paths.js';

/** busybox-static's binary (the dynamic `busybox` package would need a libc in the initramfs). */
export const STATIC_BUSYBOX = '/bin/busybox';

export interface InitramfsBuildResult {
  file: string;
  bytes: number;
  modules: string[];
}

// Builds `<dir>/initramfs.cpio` for the kernel unpacked at `root` (lib/modules/<release>/).
export function buildInitramfs(root: string, release: string, file: string): InitramfsBuildResult {
  const modDir = join(root, 'lib', 'modules', release);
  const depFile = join(modDir, 'modules.dep');
  if (!existsSync(depFile)) {
    throw new XrunhuntError('not-found', `${depFile} does not exist`, {
      hint: `make it with: depmod -b ${root} ${release}`,
    });
  }
  const builtinFile = join(modDir, 'modules.builtin');
  const builtin = existsSync(builtinFile)
    ? readFileSync(builtinFile, 'utf8').split('\n').filter(Boolean)
    : [];
  const order = moduleLoadOrder(
    parseModulesDep(readFileSync(depFile, 'utf8')),
    INITRAMFS_MODULES,
    builtin,
    release,
  );
  if (!existsSync(STATIC_BUSYBOX)) {
    throw new XrunhuntError('not-found', `${STATIC_BUSYBOX} does not exist`, {
      hint: 'install it: sudo apt-get install --no-install-recommends -y busybox-static',
    });
  }
  const bytes = encodeCpioNewc(
    initramfsEntries({
      release,
      busybox: readFileSync(STATIC_BUSYBOX),
      initScript: readFileSync(join(repoRoot, 'lab', 'initramfs', 'init'), 'utf8'),
      modules: order.map((path) => ({ path, data: readFileSync(join(modDir, path)) })),
    }),
  );
  writeFileSync(file, bytes);
  return { file, bytes: bytes.length, modules: order };
}
