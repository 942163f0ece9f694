// Rewrites a text file in place, line by line, with bounded memory and no torn result: the
// file is streamed through a transform in batches of whole lines into a temp file in the
// same folder (".NAME.PID.RAND.tmp", which watchers skip), fsynced, then renamed over the
// original. A crash leaves either the old file or the new one, never half of each.
// Optionally gunzips the input and gzips the output (kernel.log.gz).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { replaceFileAtomically } from './write.js';
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
  private readonly decoder: StringDecoder;
  private pending = '';

  constructor(
    private readonly fn: (batch: string) => string,
    private readonly encoding: TextEncodingName,
    private readonly whole: boolean,
    private readonly maxPending: number,
  ) {
    super();
    this.decoder = new StringDecoder(encoding);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.pending += this.decoder.write(chunk);
      if (this.whole) return done();
      let cut = this.pending.lastIndexOf('\n');
      if (cut === -1 && this.pending.length > this.maxPending) {
        cut = Math.max(this.pending.lastIndexOf(' '), this.pending.lastIndexOf('\t'));
      }
      if (cut >= 0) {
        const batch = this.pending.slice(0, cut + 1);
        this.pending = this.pending.slice(cut + 1);
        this.push(Buffer.from(this.fn(batch), this.encoding));
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
      if (rest !== '') this.push(Buffer.from(this.fn(rest), this.encoding));
      done();
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/** How the bytes are read as text: UTF-8, or byte for byte (latin1) when they are not UTF-8. */
export type TextEncodingName = 'utf8' | 'latin1';

export interface RewriteOptions {
  /** The file is gzip-compressed: decompress before, compress after. */
  gzip?: boolean;
  /** Default 'utf8'; 'latin1' keeps every byte of a file that is not valid UTF-8. */
  encoding?: TextEncodingName;
  /** Transform the whole content at once (callers bound the size): no batch boundaries. */
  whole?: boolean;
  /** Cut point for a line without a break (default MAX_PENDING_CHARS; tests use less). */
  maxPendingChars?: number;
}

export interface TextFacts {
  /** NUL bytes in the first 8 KiB (after decompression): not text, do not rewrite. */
  binary: boolean;
  /** 'utf8' when the whole content is valid UTF-8, else 'latin1' (rewritten byte-exact). */
  encoding: TextEncodingName;
}

const SNIFF_BYTES = 8192;

/**
 * Reads a file once (decompressing when asked) to decide how to rewrite it without loss:
 * binary files are left alone, and text that is not valid UTF-8 (a latin1 syslog) is
 * rewritten byte for byte instead of having its bytes replaced by U+FFFD.
 */
export async function inspectText(path: string, gzip = false): Promise<TextFacts> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let head = 0;
  let binary = false;
  let utf8 = true;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done): void {
      if (head < SNIFF_BYTES) {
        if (chunk.subarray(0, SNIFF_BYTES - head).includes(0)) binary = true;
        head += chunk.length;
      }
      if (utf8) {
        try {
          decoder.decode(chunk, { stream: true });
        } catch {
          utf8 = false;
        }
      }
      // Nothing more to learn once it is binary, or non-UTF-8 after the head.
      done(binary || (!utf8 && head >= SNIFF_BYTES) ? new EarlyStop() : undefined);
    },
  });
  const input = createReadStream(path, { highWaterMark: 256 * 1024 });
  try {
    await (gzip ? pipeline(input, createGunzip(), sink) : pipeline(input, sink));
    if (utf8) decoder.decode();
  } catch (err) {
    if (err instanceof EarlyStop) return { binary, encoding: utf8 ? 'utf8' : 'latin1' };
    if (err instanceof TypeError && utf8) return { binary, encoding: 'latin1' };
    throw err;
  }
  return { binary, encoding: utf8 ? 'utf8' : 'latin1' };
}

class EarlyStop extends Error {}

/** Streams `path` through `fn` (batches of whole lines) and atomically replaces it. */
export async function rewriteLinesAtomic(
  path: string,
  fn: (batch: string) => string,
  options: RewriteOptions = {},
): Promise<void> {
  const encoding = options.encoding ?? 'utf8';
  const whole = options.whole === true;
  const maxPending = options.maxPendingChars ?? MAX_PENDING_CHARS;
  const mode = (await stat(path)).mode & 0o777;
  await replaceFileAtomically(path, mode, async (fh) => {
    // Written through the handle (not a path stream); replaceFileAtomically fsyncs it.
    const out = new Writable({
      write(chunk: Buffer, _enc, done): void {
        fh.write(chunk).then(() => done(), done);
      },
    });
    const input = createReadStream(path, { highWaterMark: 256 * 1024 });
    if (options.gzip) {
      await pipeline(
        input,
        createGunzip(),
        new LineBatches(fn, encoding, whole, maxPending),
        createGzip(),
        out,
      );
    } else {
      await pipeline(input, new LineBatches(fn, encoding, whole, maxPending), out);
    }
  });
}
