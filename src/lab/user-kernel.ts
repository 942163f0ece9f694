// `--kernel PATH`: a user's own bzImage. Its configuration is found (a config file beside it,
// or the IKCONFIG copy inside it read with the source tree's scripts/extract-ikconfig) and
// compared with the profile fragment, so missing options are named before a useless boot.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { XrunhuntError } from '../errors.js';
import { checkBuiltConfig } from './build-kernel.js';
import { ESSENTIAL_LAB_OPTIONS } from './kernel-config.js';
import type { ConfigMismatch } from './kernel-config.js';

const execFileP = promisify(execFile);

export interface UserKernelCheck {
  bzImage: string;
  /** Where the config came from (a file path, or `IKCONFIG in <image>`); null when none found. */
  configSource: string | null;
  kernelRelease: string | null;
  mismatches: ConfigMismatch[];
  /** The mismatches among options the lab cannot work without. */
  essentialMissing: ConfigMismatch[];
}

// Files that commonly hold a kernel's config next to its image, most specific first.
export function configCandidates(bzImage: string): string[] {
  const dir = dirname(bzImage);
  // Distribution layout: /boot/vmlinuz-6.1.0-57-amd64 beside /boot/config-6.1.0-57-amd64.
  const release = /^vmlinuz-(.+)$/.exec(basename(bzImage))?.[1];
  return [
    ...(release ? [join(dir, `config-${release}`)] : []),
    `${bzImage}.config`,
    join(dir, 'config'),
    join(dir, '.config'),
    // arch/x86/boot/bzImage inside a build tree: the tree's .config
    join(dir, '..', '..', '..', '.config'),
  ];
}

// Finds a user kernel's config and names what the profile wants that it lacks.
export async function checkUserKernel(
  path: string,
  fragmentText: string,
  sourceTrees: string[],
): Promise<UserKernelCheck> {
  const bzImage = resolve(path);
  if (!existsSync(bzImage)) {
    throw new XrunhuntError('not-found', `--kernel ${bzImage} does not exist`, {
      hint: 'pass the path of a bzImage (e.g. arch/x86/boot/bzImage of your build tree)',
    });
  }
  let configText: string | undefined;
  let configSource: string | null = null;
  for (const c of configCandidates(bzImage)) {
    if (existsSync(c)) {
      configText = readFileSync(c, 'utf8');
      configSource = c;
      break;
    }
  }
  if (configText === undefined) {
    for (const tree of sourceTrees) {
      const script = join(tree, 'scripts', 'extract-ikconfig');
      if (!existsSync(script)) continue;
      try {
        const { stdout } = await execFileP(script, [bzImage], { maxBuffer: 64 * 1024 * 1024 });
        if (stdout.includes('CONFIG_')) {
          configText = stdout;
          configSource = `IKCONFIG in ${bzImage}`;
          break;
        }
      } catch {
        // no IKCONFIG in this image
      }
    }
  }
  if (configText === undefined) {
    return {
      bzImage,
      configSource: null,
      kernelRelease: null,
      mismatches: [],
      essentialMissing: [],
    };
  }
  const mismatches = checkBuiltConfig(fragmentText, configText);
  return {
    bzImage,
    configSource,
    kernelRelease: null,
    mismatches,
    essentialMissing: mismatches.filter(
      (m) => m.wanted !== null && ESSENTIAL_LAB_OPTIONS.includes(m.name),
    ),
  };
}

// Extracted kernel source trees in the cache (for scripts/extract-ikconfig).
export function cachedSourceTrees(cacheRoot: string): string[] {
  const base = join(cacheRoot, 'source');
  if (!existsSync(base)) return [];
  const out: string[] = [];
  for (const id of readdirSync(base)) {
    if (!existsSync(join(base, id, '.complete'))) continue;
    for (const top of readdirSync(join(base, id)))
      if (!top.startsWith('.')) out.push(join(base, id, top));
  }
  return out;
}
