// `--on-xrun CMD`: runs a shell command for each userspace xrun (like rtla's
// --on-threshold), with the details in environment variables. Rate-limited so an xrun
// storm (thousands a minute under emulation) cannot fork-bomb the machine it measures.
import { spawn } from 'node:child_process';

/** At most one run per this interval: one per second is plenty for notify/log hooks. */
export const ON_XRUN_MIN_INTERVAL_MS = 1000;

export interface XrunDetails {
  index: number;
  timeMs: number;
  monotonicNs: number;
  durationMs: number | null;
  phase: string | null;
  device: string;
}

/** The environment variables a hook sees (pure). */
export function onXrunEnv(d: XrunDetails): Record<string, string> {
  return {
    XRUNHUNT_XRUN_INDEX: String(d.index),
    XRUNHUNT_XRUN_TIME_MS: d.timeMs.toFixed(3),
    XRUNHUNT_XRUN_MONOTONIC_NS: String(d.monotonicNs),
    XRUNHUNT_XRUN_DURATION_MS: d.durationMs === null ? '' : d.durationMs.toFixed(3),
    XRUNHUNT_XRUN_PHASE: d.phase ?? '',
    XRUNHUNT_DEVICE: d.device,
  };
}

export interface OnXrunRunner {
  /** Runs the hook for this xrun unless rate-limited or one is still running. */
  trigger(d: XrunDetails, nowMs: number): boolean;
  /** Waits for a running hook (bounded by the caller). */
  idle(): Promise<void>;
  readonly ran: number;
  readonly skipped: number;
  readonly failures: string[];
}

/** Creates the hook runner; `run` is injectable (tests count calls without a shell). */
export function createOnXrunRunner(
  command: string,
  env: NodeJS.ProcessEnv,
  run: (cmd: string, env: NodeJS.ProcessEnv) => Promise<number | null> = runShell,
): OnXrunRunner {
  let last = -Infinity;
  let running: Promise<void> | null = null;
  let ran = 0;
  let skipped = 0;
  const failures: string[] = [];
  return {
    trigger(d, nowMs) {
      if (running || nowMs - last < ON_XRUN_MIN_INTERVAL_MS) {
        skipped++;
        return false;
      }
      last = nowMs;
      ran++;
      running = run(command, { ...env, ...onXrunEnv(d) })
        .then((code) => {
          if (code !== 0 && failures.length < 5)
            failures.push(`--on-xrun command exited with ${String(code)}`);
        })
        .catch((err: unknown) => {
          if (failures.length < 5) failures.push(`--on-xrun command failed: ${String(err)}`);
        })
        .finally(() => (running = null));
      return true;
    },
    async idle() {
      await running;
    },
    get ran() {
      return ran;
    },
    get skipped() {
      return skipped;
    },
    failures,
  };
}

function runShell(cmd: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', cmd], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
}
