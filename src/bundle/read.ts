// Reading bundles from bytes or files: gzip recognised by its magic bytes (not the name),
// truncated gzip and bad JSON reported as such, then validated and upgraded.
import * as nodeFs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { XrunhuntError, errnoCode } from '../errors.js';
import { describeInputKind, inputKindOfStats } from '../io/input-path.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import type { Bundle } from './schema.js';
import { validateBundle } from './validate.js';

/** Largest decompressed bundle accepted (a gzip bomb guard); real bundles are < 5 MiB. */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

/** Whether bytes start with the gzip magic (1f 8b). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Decompresses if gzipped; names truncation and corruption precisely. */
export function decodeBundleBytes(
  bytes: Uint8Array,
  label: string,
  maxBytes: number = MAX_BUNDLE_BYTES,
): string {
  let raw: Uint8Array = bytes;
  if (isGzip(bytes)) {
    try {
      raw = gunzipSync(bytes, { maxOutputLength: maxBytes });
    } catch (err) {
      const code = errnoCode(err);
      const why =
        code === 'Z_BUF_ERROR' || /unexpected end/i.test(String((err as Error).message))
          ? 'the gzip data is truncated (the file was cut short while copying or uploading)'
          : code === 'ERR_BUFFER_TOO_LARGE' ||
              /larger than|too large/i.test(String((err as Error).message))
            ? `it decompresses to more than ${maxBytes} bytes`
            : `the gzip data is corrupt (${(err as Error).message})`;
      throw new XrunhuntError('format', `${label}: ${why}`, {
        hint: 'ask for the bundle again; xrunhunt writes complete files only',
      });
    }
  }
  if (raw.length > maxBytes) {
    throw new XrunhuntError(
      'format',
      `${label}: ${raw.length} bytes is larger than the ${maxBytes}-byte limit`,
    );
  }
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
}

/** Parses and validates bundle bytes (raw JSON or gzip). `name` appears in every error. */
export function parseBundleBytes(
  bytes: Uint8Array,
  name = 'bundle',
  maxBytes: number = MAX_BUNDLE_BYTES,
): Bundle {
  const label = name === 'bundle' ? 'bundle' : `bundle ${name}`;
  const text = decodeBundleBytes(bytes, label, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const empty = text.trim() === '';
    throw new XrunhuntError(
      'format',
      // V8's message quotes the start of the text: escaped, it cannot drive the terminal.
      `${label}: ${empty ? 'the file is empty' : `not valid JSON (${quoteUntrusted((err as Error).message)})`}`,
      { hint: 'a bundle is one JSON document, optionally gzipped (see docs/aggregate.md)' },
    );
  }
  return validateBundle(json, name);
}

/** A bundle file's bytes with the facts the fleet store keys re-reads on. */
export interface BundleFileBytes {
  bytes: Buffer;
  size: number;
  mtimeMs: number;
}

/**
 * Reads a bundle file's bytes without trusting the path: opened non-blocking (a FIFO cannot
 * hang the open), then the open file itself is checked — a regular file of at most
 * `maxBytes` — before a byte is read, and at most `maxBytes` + 1 bytes are ever read (a file
 * that grows meanwhile is refused, not followed). /dev/zero, a FIFO, a socket or a 1.5 GB
 * file are refused by name and kind, in constant memory. `label` names it in errors.
 */
export function readBundleFileBytes(
  path: string,
  label: string,
  maxBytes: number = MAX_BUNDLE_BYTES,
  fs: Pick<typeof nodeFs, 'openSync' | 'fstatSync' | 'readSync' | 'closeSync'> = nodeFs,
): BundleFileBytes {
  let fd: number;
  try {
    fd = fs.openSync(path, nodeFs.constants.O_RDONLY | nodeFs.constants.O_NONBLOCK);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') {
      throw new XrunhuntError('not-found', `${label}: no such file`, {
        hint: 'check the path; sessions write bundles into their --out folder',
      });
    }
    if (code === 'EACCES' || code === 'EPERM')
      throw new XrunhuntError('permission', `${label}: permission denied`);
    throw new XrunhuntError('input', `${label}: cannot be opened (${code ?? String(err)})`);
  }
  try {
    const st = fs.fstatSync(fd);
    const kind = inputKindOfStats(st);
    if (kind === 'directory') {
      throw new XrunhuntError('input', `${label}: is a directory, expected a bundle file`, {
        hint: 'name the bundle files inside it (aggregate reads folders)',
      });
    }
    if (kind !== 'file') {
      throw new XrunhuntError(
        'input',
        `${label}: expected a bundle (a regular file), found ${describeInputKind(kind)}; not read`,
        { hint: 'copy the bundle into a regular file first' },
      );
    }
    if (st.size > maxBytes) {
      throw new XrunhuntError(
        'format',
        `${label}: ${st.size} bytes is larger than the ${maxBytes}-byte limit for a bundle; not read`,
        { hint: 'real bundles are under 5 MiB; this is not one, or it is damaged' },
      );
    }
    // Read what fstat promised plus one byte; a file that grew keeps being read in 64 KiB
    // steps, but never past maxBytes + 1 in total.
    const chunks: Buffer[] = [];
    let total = 0;
    let want = st.size + 1;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - total));
      const got = fs.readSync(fd, buf, 0, buf.length, null);
      if (got === 0) break;
      chunks.push(buf.subarray(0, got));
      total += got;
      if (total > maxBytes) {
        throw new XrunhuntError(
          'format',
          `${label}: grew past the ${maxBytes}-byte limit for a bundle while being read; not read`,
        );
      }
      want = 64 * 1024;
    }
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
    return { bytes, size: st.size, mtimeMs: st.mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads one bundle file (.json or .json.gz). Exists so all readers share one error story. */
export async function readBundle(path: string): Promise<Bundle> {
  const label = `bundle ${quoteUntrusted(path, 400)}`;
  const { bytes } = readBundleFileBytes(path, label);
  return parseBundleBytes(bytes, quoteUntrusted(path, 400));
}
