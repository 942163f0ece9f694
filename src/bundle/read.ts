// Reading bundles from bytes or files: gzip recognised by its magic bytes (not the name),
// truncated gzip and bad JSON reported as such, then validated and upgraded.
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { XrunhuntError, errnoCode } from '../errors.js';
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
      `${label}: ${empty ? 'the file is empty' : `not valid JSON (${(err as Error).message})`}`,
      { hint: 'a bundle is one JSON document, optionally gzipped (see docs/aggregate.md)' },
    );
  }
  return validateBundle(json, name);
}

/** Reads one bundle file (.json or .json.gz). Exists so all readers share one error story. */
export async function readBundle(path: string): Promise<Bundle> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') {
      throw new XrunhuntError('not-found', `bundle ${path}: no such file`, {
        hint: 'check the path; sessions write bundles into their --out folder',
      });
    }
    if (code === 'EISDIR')
      throw new XrunhuntError('input', `bundle ${path}: is a directory, expected a file`);
    if (code === 'EACCES')
      throw new XrunhuntError('permission', `bundle ${path}: permission denied`);
    throw err;
  }
  return parseBundleBytes(bytes, path);
}
