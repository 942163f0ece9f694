// `external`: any command as a load phase (stress-ng, fio, dbench, bonnie++, a kernel
// build). It runs in the load's work folder, its output goes to a kept file, and it is
// stopped at the deadline (SIGTERM to its process group, SIGKILL if it lingers).
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { XrunhuntError } from '../../errors.js';
import type { KindOutcome, KindSpec } from '../kind-spec.js';

// Grace between SIGTERM and SIGKILL: stress-ng and fio print their summary on SIGTERM.
const KILL_GRACE_MS = 3000;
const POLL_MS = 50;

export const externalLoad: KindSpec = {
  kind: 'external',
  summary: 'any command as the load (stress-ng, fio, dbench, bonnie++), output kept in a file',
  opsUnit: undefined,
  sizeBounds: 'none',
  defaultSizeBytes: () => 0,
  defaultWorkers: () => 1,
  usesWorkers: true,
  async run(ctx, config): Promise<KindOutcome> {
    const [cmd, ...args] = config.command ?? [];
    if (!cmd) throw new XrunhuntError('usage', 'external load without a command');
    const out = openSync(config.outputPath ?? '/dev/null', 'a');
    // Filled by the child's events (an object, so TypeScript does not narrow it away).
    const st: { exit?: { code: number | null; signal: string | null }; error?: Error } = {};
    try {
      const child = spawn(cmd, args, {
        cwd: config.dir,
        stdio: ['ignore', out, out],
        detached: true, // its own process group, so its workers stop with it
        env: { ...process.env, XRUNHUNT_LOAD_DIR: config.dir },
      });
      child.on('error', (err) => (st.error = err));
      child.on('exit', (code, signal) => (st.exit = { code, signal }));
      ctx.beginActive();
      while (!st.exit && !st.error && !(await ctx.tick())) await delay(POLL_MS);
      if (st.error) {
        throw new XrunhuntError('not-found', `cannot run "${cmd}": ${st.error.message}`, {
          hint: 'check the command name and that it is installed (e.g. apt install stress-ng)',
        });
      }
      if (!st.exit && child.pid !== undefined) {
        killGroup(child.pid, 'SIGTERM');
        const until = Date.now() + KILL_GRACE_MS;
        while (!st.exit && Date.now() < until) await delay(POLL_MS);
        if (!st.exit) {
          killGroup(child.pid, 'SIGKILL');
          while (!st.exit) await delay(POLL_MS);
        }
        const ended = exitOf(st);
        return { exited: false, exitCode: ended?.code ?? null, exitSignal: ended?.signal ?? null };
      }
      return { exited: true, exitCode: st.exit?.code ?? null, exitSignal: st.exit?.signal ?? null };
    } finally {
      closeSync(out);
    }
  },
};

// Reads the exit after awaits (TypeScript keeps an earlier narrowing of `st.exit` otherwise).
function exitOf(st: { exit?: { code: number | null; signal: string | null } }): typeof st.exit {
  return st.exit;
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
