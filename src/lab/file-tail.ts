// Follows a file another process appends to (QEMU writing the guest's stdout port) and
// forwards new bytes as they land: the inner command's output appears live on the host.
import { openSync, readSync, closeSync } from 'node:fs';
import type { Writable } from 'node:stream';

/** Poll interval: output looks live to a person, and costs nothing measurable next to TCG. */
const POLL_MS = 50;

export interface FileTail {
  /** Forwards whatever is left and stops following. */
  stop(): void;
}

// Starts following `path` (which must exist) into `out`.
export function tailFile(path: string, out: Writable): FileTail {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(64 * 1024);
  let pos = 0;
  const drain = () => {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) return;
      pos += n;
      out.write(Buffer.from(buf.subarray(0, n)));
    }
  };
  const timer = setInterval(drain, POLL_MS);
  return {
    stop() {
      clearInterval(timer);
      drain();
      closeSync(fd);
    },
  };
}
