// Entry point of a load worker child process: `node worker-main.js '<WorkerConfig JSON>'`.
// It runs one kind's loop, reports counters to the parent over IPC, and ends on the
// deadline, a byte limit, a stop message, SIGTERM/SIGINT, or when the parent disappears
// (so a `kill -9` of the CLI never leaves a load running).
import { errnoCode, errorMessage } from '../errors.js';
import { pinProcessToCpus } from './pin-process.js';
import { kindSpec } from './registry.js';
import { WorkContext } from './work-context.js';
import type { ParentMessage, WorkerConfig, WorkerEnd, WorkerMessage } from './worker-protocol.js';

function send(message: WorkerMessage): void {
  if (process.connected) process.send?.(message);
}

/** Sends the final message and waits until it is written, so disconnecting cannot drop it. */
function sendLast(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected || !process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
  const ctx = new WorkContext(
    {
      now: () => performance.now(),
      breathe: () => new Promise((resolve) => setImmediate(resolve)),
      report: (counters) => send({ type: 'progress', counters }),
    },
    config.deadlineAt - Date.now(),
    config.limitBytes,
  );
  const stop = (): void => ctx.requestStop();
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);

  let end: WorkerEnd;
  let detail: string | undefined;
  let exitCode: number | null | undefined;
  let exitSignal: string | null | undefined;
  try {
    const pinError = config.cpus ? pinProcessToCpus(config.cpus) : null;
    if (pinError !== null) throw new Error(pinError);
    const outcome = await kindSpec(config.kind).run(ctx, config);
    end = outcome?.exited ? 'exited' : (ctx.stopped ?? 'stopped');
    if (outcome) ({ exitCode, exitSignal } = outcome);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      end = 'disk-full';
      detail = `the filesystem is full (${code}) in ${config.dir}`;
    } else {
      end = 'failed';
      detail = errorMessage(err);
    }
  }
  await sendLast({
    type: 'done',
    counters: ctx.finish(),
    end,
    ...(detail === undefined ? {} : { detail }),
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(exitSignal === undefined ? {} : { exitSignal }),
  });
  if (process.connected) process.disconnect();
}

await main();
