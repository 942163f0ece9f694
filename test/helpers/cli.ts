// Runs the real CLI as a child process, the way users and scripts run it: argv in,
// stdout/stderr/exit code out. The sources run through tsx (always current, ~0.2 s start);
// XRUNHUNT_TEST_DIST=1 runs the built dist/ instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunCliOptions {
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kill the child after this long (ms); the test then fails on the exit code. */
  timeoutMs?: number;
}

/** The argv prefix that starts the CLI: node + tsx + src (or dist with XRUNHUNT_TEST_DIST=1). */
export function cliCommand(): string[] {
  const dist = `${repoRoot}dist/cli/main.js`;
  return process.env['XRUNHUNT_TEST_DIST'] === '1' && existsSync(dist)
    ? [process.execPath, dist]
    : [process.execPath, '--import', 'tsx', `${repoRoot}src/cli/main.ts`];
}

/** Runs `xrunhunt ...args` to completion. */
export function runCli(args: string[], options: RunCliOptions = {}): Promise<CliResult> {
  const [cmd, ...pre] = cliCommand();
  return runProgram(cmd!, [...pre, ...args], options);
}

/**
 * Runs any program to completion with the CLI's conventions (repo as cwd, output collected,
 * killed after timeoutMs): for tests and benches that start a particular entry (the bundle, bin/).
 */
export function runProgram(
  cmd: string,
  argv: string[],
  options: RunCliOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
