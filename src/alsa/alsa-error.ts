// Typed failures from libasound: which operation, the errno it returned, libasound's own text
// (snd_strerror) and the device. Callers branch on `errno` / `op`, never on the message.
import { XrunhuntError } from '../errors.js';

/** errno values the playback path branches on (Linux x86_64/arm64 numbering). */
export const ERRNO = {
  EPERM: 1,
  ENOENT: 2,
  EINTR: 4,
  EIO: 5,
  EAGAIN: 11,
  EBUSY: 16,
  ENODEV: 19,
  EINVAL: 22,
  EPIPE: 32,
  EBADFD: 77,
  ESTRPIPE: 86,
} as const;

const ERRNO_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ERRNO).map(([name, value]) => [value, name]),
);

/** Names an errno for messages and JSON (`32` → `EPIPE`); unknown values stay numeric. */
export function errnoName(errno: number): string {
  return ERRNO_NAMES[Math.abs(errno)] ?? `errno ${Math.abs(errno)}`;
}

export interface AlsaErrorInit {
  /** The libasound call that failed, e.g. `snd_pcm_open`. */
  op: string;
  /** Positive errno (libasound returns it negated). */
  errno: number;
  /** snd_strerror() text for the errno. */
  alsaMessage: string;
  device: string;
  hint?: string;
}

/** A libasound call failed; carries enough to branch on and to tell the user what to do. */
export class AlsaError extends XrunhuntError {
  readonly op: string;
  readonly errno: number;
  readonly alsaMessage: string;
  readonly device: string;

  constructor(init: AlsaErrorInit, message?: string) {
    super(
      init.errno === ERRNO.ENODEV || init.errno === ERRNO.ENOENT ? 'device' : 'alsa',
      message ??
        `${init.op} on "${init.device}" failed: ${init.alsaMessage} (${errnoName(init.errno)})`,
      init.hint === undefined ? {} : { hint: init.hint },
    );
    this.name = 'AlsaError';
    this.op = init.op;
    this.errno = Math.abs(init.errno);
    this.alsaMessage = init.alsaMessage;
    this.device = init.device;
  }
}
