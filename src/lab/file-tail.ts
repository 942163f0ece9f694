// Follows a file another process appends to (QEMU writing the guest's stdout port) and
// forwards new bytes as they land: the inner command's output appears live on the host.
import { openSync, readSync, closeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import type { PathRewriter } from './guest-path-rewrite.js';

/** Poll interval: output looks live to a person, and costs nothing measurable next to TCG. */
const POLL_MS = 50;

export interface FileTail {
  /** Forwards whatever is left and stops following. */
  stop(): void;
}

// Starts following `path` (which must exist) into `out`, through `rewriter` when given.
export function tailFile(path: string, out: Writable, rewriter?: PathRewriter): FileTail {
  const decoder = new StringDecoder('utf8');
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(64 * 1024);
  let pos = 0;
  const drain = () => {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) return;
      pos += n;
      if (!rewriter) out.write(Buffer.from(buf.subarray(0, n)));
      else {
        const text = rewriter.push(decoder.write(buf.subarray(0, n)));
        if (text !== '') out.write(text);
      }
    }
  };
  const timer = setInterval(drain, POLL_MS);
  return {
    stop() {
      clearInterval(timer);
      drain();
      if (rewriter) {
        const rest = rewriter.push(decoder.end()) + rewriter.flush();
        if (rest !== '') out.write(rest);
      }
      closeSync(fd);
    },
  };
}
