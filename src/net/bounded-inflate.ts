// Gzip from a peer is a promise about size that the peer does not have to keep: 68 KB can
// expand to 32 MB (or 32 GB). This inflates on zlib's thread pool (the event loop keeps
// answering other clients) and stops the moment the output passes a hard cap, so the cost
// of a bomb is the cap, never the bomb.
import { createGunzip } from 'node:zlib';
import { errnoCode } from '../errors.js';

export type InflateResult =
  | { ok: true; bytes: Buffer }
  | { ok: false; reason: 'too-large' | 'truncated' | 'corrupt'; detail: string };

/** Inflates gzip bytes asynchronously with a hard output cap (bytes); never throws. */
export function inflateBounded(gzip: Uint8Array, maxOutput: number): Promise<InflateResult> {
  return new Promise((resolve) => {
    const gunzip = createGunzip();
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (r: InflateResult): void => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      if (!r.ok) gunzip.destroy();
      resolve(r);
    };
    gunzip.on('data', (c: Buffer) => {
      if (settled) return;
      size += c.length;
      if (size > maxOutput) {
        settle({
          ok: false,
          reason: 'too-large',
          detail: `it decompresses to more than ${maxOutput} bytes`,
        });
        return;
      }
      chunks.push(c);
    });
    gunzip.on('end', () => {
      if (settled) return;
      const bytes = Buffer.concat(chunks, size);
      settle({ ok: true, bytes });
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
