// Rewrites a text file in place, line by line, with bounded memory and no torn result: the
// file is streamed through a transform in batches of whole lines into a temp file in the
// same folder (".NAME.PID.RAND.tmp", which watchers skip), fsynced, then renamed over the
// original. A crash leaves either the old file or the new one, never half of each.
// Optionally gunzips the input and gzips the output (kernel.log.gz).
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform, Writable } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip } from 'node:zlib';

/**
 * A line longer than this is cut at its last space or tab and transformed in pieces, so one
 * giant line cannot take unbounded memory. Identifiers hold no blanks, so none is split.
 */
export const MAX_PENDING_CHARS = 8 * 1024 * 1024;

/** Transforms text in batches that always end at a line break (except the very last). */
class LineBatches extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(private readonly fn: (batch: string) => string) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.pending += this.decoder.write(chunk);
      let cut = this.pending.lastIndexOf('\n');
      if (cut === -1 && this.pending.length > MAX_PENDING_CHARS) {
        cut = Math.max(this.pending.lastIndexOf(' '), this.pending.lastIndexOf('\t'));
      }
      if (cut >= 0) {
        const batch = this.pending.slice(0, cut + 1);
        this.pending = this.pending.slice(cut + 1);
        this.push(this.fn(batch));
      }
      done();
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)));
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      const rest = this.pending + this.decoder.end();
      this.pending = '';
      if (rest !== '') this.push(this.fn(rest));
      done();
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

export interface RewriteOptions {
  /** The file is gzip-compressed: decompress before, compress after. */
  gzip?: boolean;
}

/** Streams `path` through `fn` (batches of whole lines) and atomically replaces it. */
export async function rewriteLinesAtomic(
  path: string,
  fn: (batch: string) => string,
  options: RewriteOptions = {},
): Promise<void> {
  const mode = (await stat(path)).mode & 0o777;
  const tmp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const fh = await open(tmp, 'wx', mode);
  try {
    // Written through the handle (not a path stream) so it can be fsynced before the rename.
    const out = new Writable({
      write(chunk: Buffer, _enc, done): void {
        fh.write(chunk).then(() => done(), done);
      },
      final(done): void {
        fh.sync().then(() => done(), done);
      },
    });
    const input = createReadStream(path, { highWaterMark: 256 * 1024 });
    if (options.gzip) {
      await pipeline(input, createGunzip(), new LineBatches(fn), createGzip(), out);
    } else {
      await pipeline(input, new LineBatches(fn), out);
    }
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
