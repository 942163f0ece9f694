// A private, named JACK dummy server for the JACK-view tests: CI runs the other real-time tests
// on the default server at the same time, so these never use or disturb it. jackd's output goes
// to a log file (the file `watch --jack-log` reads); stop() ends only the jackd started here.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface NamedJackServer {
  name: string;
  /** jackd's stdout+stderr. */
  logFile: string;
  pid: number;
  stop(): Promise<void>;
}

// jackd on the dummy backend accepts clients ~0.5 s after start; 15 s covers a box at load 12.
const START_TIMEOUT_MS = 15_000;

/** Why the JACK-view tests cannot run here (jackd, jack_wait, gcc, libjack), or null. */
export function namedJackMissingReason(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v jackd && command -v jack_wait && command -v gcc'], {
    encoding: 'utf8',
  });
  if (r.status !== 0)
    return 'jackd2 or gcc is not installed (apt-get install jackd2 build-essential)';
  if (
    ![
      '/usr/lib/x86_64-linux-gnu/libjack.so.0',
      '/usr/lib/aarch64-linux-gnu/libjack.so.0',
      '/usr/lib64/libjack.so.0',
    ].some(existsSync)
  )
    return 'libjack.so.0 is not installed (apt-get install libjack-jackd2-0)';
  return null;
}

/** Asks the named server itself whether it accepts clients. */
export function namedJackRunning(name: string): boolean {
  const r = spawnSync('jack_wait', ['-s', name, '-c'], { encoding: 'utf8' });
  return r.stdout.trim() === 'running';
}

/** Starts `jackd -n xrunhunt-jacktest-<pid>-<tag> -d dummy -r 48000 -p 64` and waits for it. */
export async function startNamedJack(tag: string): Promise<NamedJackServer> {
  const name = `xrunhunt-jacktest-${process.pid}-${tag}`;
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-jacktest-'));
  const logFile = join(dir, 'jackd.log');
  const fd = openSync(logFile, 'a');
  const child = spawn('jackd', ['-n', name, '-d', 'dummy', '-r', '48000', '-p', '64'], {
    env: { ...process.env, JACK_NO_AUDIO_RESERVATION: '1' },
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
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
      throw new Error(
        `jackd -n ${name} exited with code ${child.exitCode} at start; see ${logFile}`,
      );
    if (namedJackRunning(name)) return { name, logFile, pid: child.pid!, stop };
    await sleep(100);
  }
  await stop();
  throw new Error(
    `jackd -n ${name} did not accept clients within ${START_TIMEOUT_MS} ms; see ${logFile}`,
  );
}
