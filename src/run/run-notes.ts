// What a session or a watch tells the user along the way: warnings (kept for the report, sent
// as events, echoed on stderr when interactive), limitations (what this run could not see),
// and progress notes (stderr only). One place, so both loops say things the same way.
import type { Writable } from 'node:stream';

export interface RunNotes {
  readonly warnings: string[];
  readonly limitations: string[];
  warn(message: string): void;
  note(line: string): void;
}

/** Creates the warning/limitation/note sink of one run. */
export function createRunNotes(opts: {
  emitWarning: (message: string) => void;
  progress: boolean;
  stderr: Writable;
}): RunNotes {
  const warnings: string[] = [];
  const limitations: string[] = [];
  return {
    warnings,
    limitations,
    warn(message) {
      warnings.push(message);
      opts.emitWarning(message);
      if (opts.progress) opts.stderr.write(`xrunhunt: warning: ${message}\n`);
    },
    note(line) {
      if (opts.progress) opts.stderr.write(`xrunhunt: ${line}\n`);
    },
  };
}
