// Follows jackd's output file (`--jack-log`) from its current end, stamping each new line
// with the time it was read: jackd prints no timestamps, so the read time is what joins a
// line to the xrun callbacks. A thin IO shell around parseJackLogLine.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { errorMessage, XrunhuntError } from '../errors.js';
import { parseJackLogLine } from './jack-log-line.js';
import type { StampedJackLogEvent } from './jack-incidents.js';

/** Read interval: short, so a line's read time is within a few ms of when jackd wrote it. */
export const JACK_LOG_POLL_MS = 10;
const CHUNK = 64 * 1024;

export interface JackLogTail {
  /** Xrun lines read so far (stamped), oldest first. */
  readonly events: StampedJackLogEvent[];
  /** Reads what jackd wrote since the last call. */
  poll(): void;
  /** Reads the rest, stops the timer and closes the file. */
  close(): void;
}

/** Opens `path` at its end and reads it every JACK_LOG_POLL_MS; `now` gives ms since the run start. */
export function followJackLog(path: string, now: () => number): JackLogTail {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new XrunhuntError(
      'not-found',
      `cannot read the jackd log "${path}": ${errorMessage(err)}`,
      {
        hint: 'give the file jackd writes its output to (jackd ... >jackd.log 2>&1; scripts/jack-dummy.sh writes /tmp/xrunhunt-jackd.log), or leave out --jack-log',
        cause: err,
      },
    );
  }
  let offset = fstatSync(fd).size;
  let partial = '';
  const events: StampedJackLogEvent[] = [];
  const buf = Buffer.alloc(CHUNK);
  let open = true;
  const poll = (): void => {
    if (!open) return;
    const size = fstatSync(fd).size;
    if (size < offset) {
      // Truncated (jackd restarted with `>`): read the new content from the start.
      offset = 0;
      partial = '';
    }
    while (offset < size) {
      const n = readSync(fd, buf, 0, CHUNK, offset);
      if (n <= 0) break;
      offset += n;
      const lines = (partial + buf.subarray(0, n).toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      const at = now();
      for (const line of lines) {
        const event = parseJackLogLine(line);
        if (event) events.push({ atMs: at, event });
      }
    }
  };
  const timer = setInterval(poll, JACK_LOG_POLL_MS);
  timer.unref();
  return {
    events,
    poll,
    close() {
      poll();
      clearInterval(timer);
      open = false;
      closeSync(fd);
    },
  };
}
