// A JACK dummy server for real-time tests: reuses one that is already running (CI starts it
// with scripts/jack-dummy.sh), otherwise starts jackd itself, waits until it accepts clients,
// and stops it again by PID — never a server it did not start.
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export interface JackServer {
  /** Whether this helper started it (and will stop it). */
  startedHere: boolean;
  stop(): Promise<void>;
}

// jackd on the dummy backend accepts clients ~0.5 s after start here; 10 s covers a loaded CI box.
const START_TIMEOUT_MS = 10_000;
const POLL_MS = 100;

/** Whether jackd and jack_wait are installed (tests skip with this reason otherwise). */
export function jackMissingReason(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v jackd && command -v jack_wait'], {
    encoding: 'utf8',
  });
  return r.status === 0
    ? null
    : 'jackd2 is not installed (apt-get install jackd2 libasound2-plugins)';
}

/** Asks the server itself: jack_wait -c prints "running" (its exit code is 0 either way). */
export function jackRunning(): boolean {
  const r = spawnSync('jack_wait', ['-c'], { encoding: 'utf8' });
  return r.stdout.trim() === 'running';
}

/** Makes sure a JACK dummy server at 48 kHz / 64 frames answers; returns how to undo it. */
export async function ensureJack(): Promise<JackServer> {
  if (jackRunning()) return { startedHere: false, stop: async () => undefined };
  const child = spawn('jackd', ['-R', '-P', '85', '-d', 'dummy', '-r', '48000', '-p', '64'], {
    env: { ...process.env, JACK_NO_AUDIO_RESERVATION: '1' },
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`jackd exited with code ${child.exitCode} at start`);
    if (jackRunning()) return { startedHere: true, stop };
    await sleep(POLL_MS);
  }
  await stop();
  throw new Error(`jackd did not accept clients within ${START_TIMEOUT_MS} ms`);
}
