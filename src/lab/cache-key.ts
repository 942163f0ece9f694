// Where a built lab kernel lives: a key from everything that changes the build output,
// so a changed fragment or a new kernel source gets its own folder and nothing stale is reused.
import { createHash } from 'node:crypto';

/**
 * Bumped when the build recipe itself changes (base configs, make targets, install layout),
 * so old cache folders are not mistaken for builds of the new recipe.
 */
export const LAB_RECIPE_VERSION = 1;

export interface LabCacheKeyInput {
  profile: string;
  /** The fragment file's full text (comments included: cheap, and never ambiguous). */
  fragmentText: string;
  /** Identifies the kernel source, e.g. `linux-source-6.1.tar.xz:138008000:1795713176`. */
  sourceId: string;
}

// A stable, short folder name: the same inputs always map to the same cache folder.
export function labCacheKey(input: LabCacheKeyInput): string {
  const hash = createHash('sha256');
  hash.update(`xrunhunt-lab-recipe-${LAB_RECIPE_VERSION}\n`);
  hash.update(`profile=${input.profile}\n`);
  hash.update(`source=${input.sourceId}\n`);
  hash.update(input.fragmentText);
  return `${input.profile}-${hash.digest('hex').slice(0, 16)}`;
}

// The source identity from the tarball's name, size and mtime: changes whenever the Debian
// package is upgraded, without hashing 138 MB on every `lab run`.
export function kernelSourceId(tarballName: string, sizeBytes: number, mtimeMs: number): string {
  return `${tarballName}:${sizeBytes}:${Math.floor(mtimeMs / 1000)}`;
}
