// Kernel-log capture by following a command's output: `journalctl -k -f -o
// short-monotonic -n 0` (timestamps are the kernel's monotonic seconds) or `dmesg -W`
// (new messages only). Used when /dev/kmsg cannot be opened. These tools do not report
// records lost to ring-buffer overruns, so lostMessages stays 0 and a warning says so.
import { spawn as nodeSpawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { CaptureSourceName, CapturedLine, KernelCaptureSource } from './source-contract.js';
import { LineQueue } from './source-queue.js';

/** How a follower is started; tests inject a real small script instead of journalctl. */
export type SpawnFn = (cmd: string, args: string[]) => ChildProcess;

const defaultSpawn: SpawnFn = (cmd, args) =>
  nodeSpawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });

/** How long to wait after spawning for an early failure (missing binary, no permission). */
const STARTUP_GRACE_MS = 150;

/** The commands that follow the kernel log, by source name. */
export const FOLLOW_COMMANDS: Record<'journalctl' | 'dmesg', { cmd: string; args: string[] }> = {
  journalctl: { cmd: 'journalctl', args: ['-k', '-f', '-o', 'short-monotonic', '-n', '0', '-q'] },
  // -W/--follow-new: only messages printed from now on (util-linux >= 2.35).
  dmesg: { cmd: 'dmesg', args: ['-W'] },
};

export interface ProcessSourceOptions {
  name: Extract<CaptureSourceName, 'journalctl' | 'dmesg'>;
  cmd?: string;
  args?: string[];
  spawn?: SpawnFn;
  now?: () => bigint;
}

/** A capture that follows a command's stdout line by line. */
export function createProcessSource(options: ProcessSourceOptions): KernelCaptureSource {
  const def = FOLLOW_COMMANDS[options.name];
  const cmd = options.cmd ?? def.cmd;
  const args = options.args ?? def.args;
  const spawn = options.spawn ?? defaultSpawn;
  const now = options.now ?? (() => process.hrtime.bigint());
  const queue = new LineQueue();
  const warnings: string[] = [
    `${options.name} does not report kernel messages lost to ring-buffer overruns; a dump may be missing without notice`,
  ];
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  return {
    name: options.name,
    lostMessages: 0,
    warnings,
    async start(signal: AbortSignal) {
      const c = spawn(cmd, args);
      child = c;
      let stderr = '';
      c.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
      exited = new Promise<void>((resolve) => {
        c.once('close', (code, sig) => {
          if (code !== 0 && code !== null && !signal.aborted) {
            warnings.push(
              `${cmd} ${args.join(' ')} exited with code ${code}${stderr ? `: ${stderr.trim()}` : ''}`,
            );
          } else if (sig && sig !== 'SIGTERM') warnings.push(`${cmd} ended by ${sig}`);
          queue.end();
          resolve();
        });
      });
      const rl = createInterface({ input: c.stdout! });
      rl.on('line', (text) => queue.push({ text, readNs: Number(now()) }));
      const failed = await new Promise<Error | null>((resolve) => {
        const t = setTimeout(() => resolve(null), STARTUP_GRACE_MS);
        c.once('error', (err) => {
          clearTimeout(t);
          resolve(err);
        });
        c.once('exit', (code) => {
          if (code !== 0) {
            clearTimeout(t);
            resolve(new Error(`${cmd} exited with code ${String(code)}: ${stderr.trim()}`));
          }
        });
      });
      if (failed) {
        queue.end();
        throw failed;
      }
      signal.addEventListener('abort', () => c.kill('SIGTERM'), { once: true });
    },
    async close() {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      queue.end();
    },
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  } satisfies KernelCaptureSource & { lostMessages: number };
}

export type { CapturedLine };
