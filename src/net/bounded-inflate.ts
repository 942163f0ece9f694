// Gzip from a peer is a promise about size that the peer does not have to keep: 68 KB can
// expand to 32 MB (or 32 GB). This inflates on zlib's thread pool (the event loop keeps
// answering other clients) and stops the moment the output passes a hard cap, so the cost
// of a bomb is the cap, never the bomb.
import { createGunzip } from 'node:zlib';
import { errnoCode } from '../errors.js';

export type InflateResult =
  | { ok: true; bytes: Buffer }
  | { ok: false; reason: 'too-large' | 'truncated' | 'corrupt'; detail: string };

/**
 * Inflates gzip bytes asynchronously with a hard output cap (bytes); never throws. The output
 * is gathered into one buffer that starts at `expectedSize` (when the caller knows it) and
 * doubles up to the cap, so memory is about the output once, not twice.
 */
export function inflateBounded(
  gzip: Uint8Array,
  maxOutput: number,
  expectedSize: number = 64 * 1024,
): Promise<InflateResult> {
  return new Promise((resolve) => {
    const gunzip = createGunzip();
    let out = Buffer.allocUnsafe(Math.max(1, Math.min(maxOutput, expectedSize)));
    let size = 0;
    let settled = false;
    const settle = (r: InflateResult): void => {
      if (settled) return;
      settled = true;
      if (!r.ok) gunzip.destroy();
      resolve(r);
    };
    gunzip.on('data', (c: Buffer) => {
      if (settled) return;
      if (size + c.length > maxOutput) {
        settle({
          ok: false,
          reason: 'too-large',
          detail: `it decompresses to more than ${maxOutput} bytes`,
        });
        return;
      }
      if (size + c.length > out.length) {
        const bigger = Buffer.allocUnsafe(
          Math.min(maxOutput, Math.max(out.length * 2, size + c.length)),
        );
        out.copy(bigger, 0, 0, size);
        out = bigger;
      }
      c.copy(out, size);
      size += c.length;
    });
    gunzip.on('end', () => {
      if (settled) return;
      settle({ ok: true, bytes: out.subarray(0, size) });
    });
    gunzip.on('error', (err) => {
      const truncated =
        errnoCode(err) === 'Z_BUF_ERROR' || /unexpected end/i.test(String(err.message));
      settle(
        truncated
          ? {
              ok: false,
              reason: 'truncated',
              detail: 'the gzip data is truncated (cut short while copying or uploading)',
            }
          : { ok: false, reason: 'corrupt', detail: `the gzip data is corrupt (${err.message})` },
      );
    });
    gunzip.end(gzip);
  });
}

/**
 * The size a gzip stream says it inflates to (its ISIZE trailer, modulo 2^32). A peer can
 * lie, so this is only a reservation hint; inflateBounded still enforces the real cap.
 */
export function gzipDeclaredSize(gzip: Uint8Array): number | null {
  if (gzip.length < 18) return null;
  const n = gzip.length;
  return (gzip[n - 4]! | (gzip[n - 3]! << 8) | (gzip[n - 2]! << 16) | (gzip[n - 1]! << 24)) >>> 0;
}
