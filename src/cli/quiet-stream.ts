// -q/--quiet, done once for every command: the command's stderr passes only the lines that
// are warnings or errors (they start with "xrunhunt:"); progress and notes are dropped.
// Commands keep writing as they always do; they never test the flag themselves.
import { Writable } from 'node:stream';

const MAX_PENDING = 64 * 1024;

/** Whether a stderr line must survive --quiet: xrunhunt's warnings and errors. */
export function keepWhenQuiet(line: string): boolean {
  return /^\s*xrunhunt:/.test(line);
}

/** Wraps stderr for --quiet: whole lines in, only the kept lines out (in order). */
export function quietStderr(target: Writable): Writable {
  let pending = '';
  const emit = (text: string): void => {
    // A carriage return ends a line too: live progress rewritten with \r never piles up.
    const lines = text.split(/\r\n|\n|\r/);
    pending = lines.pop() ?? '';
    // A runaway line without an end is not a warning line anyone needs whole.
    if (pending.length > MAX_PENDING)
      pending = keepWhenQuiet(pending) ? pending.slice(0, MAX_PENDING) : '';
    const kept = lines.filter(keepWhenQuiet);
    if (kept.length > 0) target.write(kept.map((l) => `${l}\n`).join(''));
  };
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      emit(pending + (typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
      done();
    },
    final(done) {
      if (pending !== '' && keepWhenQuiet(pending)) target.write(`${pending}\n`);
      pending = '';
      done();
    },
  });
}
