// The lab's out-of-tree ground-truth offender (lab/injector/xrunhunt_inject.c) for kernels
// without test_lockup: how it is built against a release's headers and what it is called.
// Pure: paths in, the make command and file names out.
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** The module's name, as /proc/modules and the stacks ([xrunhunt_inject]) show it. */
export const INJECTOR_MODULE = 'xrunhunt_inject';
/** The function where interrupts come back on: what the analysis must rank first. */
export const INJECTOR_UNLOCK_FUNCTION = 'xrunhunt_inject_unlock';
/** The sources copied into the build folder (kbuild writes its objects beside them). */
export const INJECTOR_SOURCES = ['Kbuild', `${INJECTOR_MODULE}.c`] as const;

export interface InjectorBuild {
  cmd: string;
  args: string[];
  /** The module the build leaves in buildDir. */
  module: string;
}

// `make -C <headers> M=<build dir> modules`: kbuild's out-of-tree module build.
export function injectorBuildCommand(
  headersDir: string,
  buildDir: string,
  jobs = 1,
): InjectorBuild {
  return {
    cmd: 'make',
    args: ['-C', headersDir, `M=${buildDir}`, `-j${jobs}`, 'modules'],
    module: join(buildDir, `${INJECTOR_MODULE}.ko`),
  };
}

// A hash of the injector's sources: a cached module built from other sources is rebuilt.
export function injectorSourceHash(sources: readonly string[]): string {
  const h = createHash('sha256');
  for (const s of sources) h.update(`${s.length}\n${s}`);
  return h.digest('hex').slice(0, 16);
}
