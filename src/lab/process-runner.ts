// Runs one external program for the lab (tar, make, mkfs, apt-get), line by line: every line
// goes to a log, a callback sees it for progress, and an abort kills the whole process group
// (make's compilers included) so nothing is left running.
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Receives stdout and stderr, as they arrive. */
  log?: Writable;
  /** Called with each complete output line. */
  onLine?: (line: string) => void;
  signal?: AbortSignal;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last ~40 output lines, for error messages. */
  tail: string[];
}

// Spawns `cmd args` in its own process group and resolves when it has exited.
export function runLogged(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const tail: string[] = [];
    const partial = { out: '', err: '' };
    const feed = (which: 'out' | 'err', chunk: Buffer) => {
      opts.log?.write(chunk);
      const text = partial[which] + chunk.toString();
      const lines = text.split('\n');
      partial[which] = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        opts.onLine?.(line);
      }
    };
    child.stdout.on('data', (d: Buffer) => feed('out', d));
    child.stderr.on('data', (d: Buffer) => feed('err', d));
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    opts.signal?.addEventListener('abort', kill, { once: true });
    child.on('error', (err) => {
      opts.signal?.removeEventListener('abort', kill);
      reject(err);
    });
    child.on('close', (code, signal) => {
      opts.signal?.removeEventListener('abort', kill);
      for (const rest of [partial.out, partial.err]) if (rest) tail.push(rest);
      resolve({ code, signal, tail });
    });
  });
}
