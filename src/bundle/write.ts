// Writing a bundle: validated first (never write something readers refuse), gzipped when the
// name ends in .gz, written to a temp file in the same folder, fsynced, then renamed, so a
// crash or a watcher never sees half a bundle.
import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink } from 'node:fs/promises';
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

/** Writes bytes atomically (temp + fsync + rename); the temp name starts with "." so watchers skip it. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  await refuseSpecialTarget(path);
  const tmp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const fh = await open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } catch (err) {
    await fh.close();
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

/** Validates and writes a bundle atomically; `.gz` names are gzipped. */
export async function writeBundle(path: string, bundle: Bundle): Promise<void> {
  const clean = validateBundle(bundle);
  await writeFileAtomic(path, encodeBundle(clean, path.endsWith('.gz')));
}
