// A temporary file for report text that must come after something known only at the end
// (`analyze --verbose` lists every event after the ranking): the text goes to disk as it is
// made, so memory does not grow with the number of events, and is copied out afterwards.
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { XrunhuntError, errnoCode } from '../errors.js';

export interface TextSpool {
  append(text: string): void;
  /** Copies everything appended to `out`, with backpressure. */
  copyTo(out: Writable): Promise<void>;
  /** Removes the file (also after an error). */
  dispose(): void;
}

// Written to disk in pieces of about this size.
const FLUSH_CHARS = 1 << 20;

/** Creates a spool in a fresh private folder under `dir` (default: the system temp folder). */
export function createTextSpool(dir: string = tmpdir()): TextSpool {
  let folder = '';
  let fd: number | null = null;
  try {
    folder = mkdtempSync(join(dir, 'xrunhunt-report-'));
    fd = openSync(join(folder, 'events.txt'), 'w', 0o600);
  } catch (err) {
    if (folder) rmSync(folder, { recursive: true, force: true });
    throw new XrunhuntError(
      'resource',
      `cannot create a temporary file for the event list in ${dir}: ${errnoCode(err) ?? String(err)}`,
      { hint: 'set TMPDIR to a writable folder, or leave out --verbose' },
    );
  }
  const file = join(folder, 'events.txt');
  let pending = '';
  const flush = (): void => {
    if (fd === null || pending.length === 0) return;
    try {
      writeSync(fd, pending);
    } catch (err) {
      throw new XrunhuntError(
        'resource',
        `cannot write the event list to ${file}: ${errnoCode(err) ?? String(err)}`,
        { hint: 'free space in the temporary folder (TMPDIR), or leave out --verbose' },
      );
    }
    pending = '';
  };
  const closeFd = (): void => {
    if (fd !== null) closeSync(fd);
    fd = null;
  };
  return {
    append(text: string): void {
      pending += text;
      if (pending.length >= FLUSH_CHARS) flush();
    },
    async copyTo(out: Writable): Promise<void> {
      flush();
      closeFd();
      for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
        if (out.destroyed) break; // the reader went away (`| head`)
        if (!out.write(chunk as Buffer)) {
          await new Promise<void>((resolve) => {
            const done = (): void => {
              out.off('drain', done);
              out.off('close', done);
              resolve();
            };
            out.on('drain', done);
            out.on('close', done);
          });
        }
      }
    },
    dispose(): void {
      closeFd();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
