// Writing a bundle: validated first (never write something readers refuse), gzipped when the
// name ends in .gz, written to a temp file in the same folder, fsynced, then renamed, so a
// crash or a watcher never sees half a bundle.
import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describeInputKind, inspectInputPath } from '../io/input-path.js';
import type { Bundle } from './schema.js';
import { validateBundle } from './validate.js';

/** Encodes a bundle: gzip when `gzip` is true, else indented JSON. */
export function encodeBundle(bundle: Bundle, gzip: boolean): Buffer {
  const text = JSON.stringify(bundle, null, gzip ? 0 : 2) + '\n';
  return gzip ? gzipSync(text) : Buffer.from(text);
}

/**
 * The rename would replace whatever `path` names: as root, a device node such as /dev/full or
 * a FIFO would become a regular file. Only regular files (or nothing) may be replaced; folders
 * are left to rename's own EISDIR.
 */
async function refuseSpecialTarget(path: string): Promise<void> {
  const exists = await stat(path).then(
    () => true,
    () => false,
  );
  if (!exists) return;
  const { kind } = inspectInputPath(path);
  if (kind === 'file' || kind === 'directory') return;
  throw Object.assign(new Error(`it is ${describeInputKind(kind)}, not a regular file`), {
    code: 'ENOTREGULAR',
  });
}

/**
 * Replaces `path` atomically: `fill` writes the new content through a handle on a temp file
 * in the same folder (named ".<name>.<pid>.<8 hex>.tmp": watchers skip dot files, and
 * `serve` removes a dead pid's leftovers by that name), which is fsynced and renamed over
 * `path`; on any failure the temp file is removed and the error rethrown.
 */
export async function replaceFileAtomically(
  path: string,
  mode: number,
  fill: (fh: FileHandle) => Promise<void>,
): Promise<void> {
  const tmp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const fh = await open(tmp, 'wx', mode);
  try {
    await fill(fh);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/** Writes bytes atomically (temp + fsync + rename); the temp name starts with "." so watchers skip it. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  await refuseSpecialTarget(path);
  await replaceFileAtomically(path, 0o644, (fh) => fh.writeFile(bytes));
}

/** Validates and writes a bundle atomically; `.gz` names are gzipped. */
export async function writeBundle(path: string, bundle: Bundle): Promise<void> {
  const clean = validateBundle(bundle);
  await writeFileAtomic(path, encodeBundle(clean, path.endsWith('.gz')));
}
