// A JACK dummy server for real-time tests: reuses one that is already running (CI starts it
// with scripts/jack-dummy.sh), otherwise starts jackd itself, waits until it accepts clients,
// and stops it again by PID — never a server it did not start.
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { openJackObserver } from '../../src/jack/jack-observer.js';
import type { JackXrunCallback } from '../../src/jack/jack-incidents.js';

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

/** A passive JACK client recording the server's own xruns while a real-time test runs. */
export interface ServerLatenessProbe {
  /**
   * Closes the client; returns every xrun callback seen, oldest first, with `atMs` on
   * CLOCK_MONOTONIC (ms) to line up with `play`'s monotonicNs.
   */
  stop(): Promise<JackXrunCallback[]>;
}

const monotonicMs = (): number => Number(process.hrtime.bigint() / 1000n) / 1000;

/**
 * The peer measured in the same run for a player on JACK: when the JACK server's own cycle is
 * late (JackTimedDriver's "Process XRun", a client blocking the graph, or this VM's vCPUs
 * stalling every thread at once), no client could have kept time, so a player's silence at
 * that moment is the machine's. Uses xrunhunt's own observer (owns no ports, cannot cause one).
 */
export function probeServerLateness(): ServerLatenessProbe {
  const observer = openJackObserver({
    server: null,
    clientName: 'xrh-test-peer',
    now: monotonicMs,
  });
  return {
    async stop() {
      const seen = [...observer.callbacks];
      await observer.close();
      return seen;
    },
  };
}

/** What a real-time play test needs of one reported xrun. */
export interface TimedXrun {
  monotonicNs: string;
  durationMs: number;
}

// A machine stall shows on the server as a burst: measured here, the player's 15–41 ms
// silences each sat inside a run of 8–30 server callbacks ~6 ms apart, while scattered single
// callbacks (a few µs late) come at 1–10 per second anyway. So a silence is the machine's only
// when at least BURST_CALLBACKS callbacks fall in it and they span at least half of it.
const BURST_CALLBACKS = 3;
const BURST_SPAN_SHARE = 0.5;
// Callbacks are stamped when delivered, through the same stalled machine: a little after.
const CALLBACK_LAG_MS = 10;

/**
 * Splits a player's xruns into those the JACK server was late throughout as well (a burst of
 * its own xrun callbacks spans the player's silence) and the player's own.
 */
export function splitByServerLateness<X extends TimedXrun>(
  xruns: X[],
  late: readonly JackXrunCallback[],
): { machine: X[]; own: X[] } {
  const machine: X[] = [];
  const own: X[] = [];
  for (const x of xruns) {
    const detectMs = Number(BigInt(x.monotonicNs) / 1000n) / 1000;
    const fromMs = detectMs - x.durationMs;
    const inside = late
      .map((c) => c.atMs)
      .filter((t) => t >= fromMs && t <= detectMs + CALLBACK_LAG_MS);
    const span = inside.length > 0 ? Math.max(...inside) - Math.min(...inside) : 0;
    const burst = inside.length >= BURST_CALLBACKS && span >= x.durationMs * BURST_SPAN_SHARE;
    (burst ? machine : own).push(x);
  }
  return { machine, own };
}

// At up to this many server xrun callbacks per second (measured here on a quiet VM: 1–10/s of
// scattered µs-late ones), a chance burst of BURST_CALLBACKS inside one ~25 ms silence has a
// probability under 0.05 % (Poisson, λ ≤ 0.14), so a burst means the machine stalled. Above
// it (20/s measured while the host crawled: 12 spontaneous xruns in 6 s) bursts overlap every
// silence, the player's own ones too, and the split cannot tell them apart.
const QUIET_SERVER_RATE_PER_S = 5;

/**
 * Whether the server was quiet enough during the run for splitByServerLateness to keep the
 * player's own silences apart from the machine's: the rate of the server's own xrun callbacks
 * over the run's span, and the verdict against QUIET_SERVER_RATE_PER_S.
 */
export function serverQuietEnough(
  late: readonly JackXrunCallback[],
  runSeconds: number,
): { ratePerS: number; quiet: boolean } {
  const ratePerS = runSeconds > 0 ? late.length / runSeconds : Infinity;
  return { ratePerS, quiet: ratePerS <= QUIET_SERVER_RATE_PER_S };
}
