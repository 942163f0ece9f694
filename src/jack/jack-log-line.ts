// What jackd (JACK2) prints about an xrun, parsed from one line of its output. JACK's client
// API says that an xrun happened, never who was late; jackd's engine prints the client it was
// still waiting for. The formats are jackd2 1.9.21's (strings of libjackserver.so.0 and
// jack_alsa.so, Debian 12): see docs/watch.md §JACK.

/** One xrun-related line of jackd's output. */
export type JackLogEvent =
  | {
      /** `JackEngine::XRun: client = NAME was not finished, state = STATE` */
      kind: 'client-late';
      client: string;
      /** JACK's client timing state: Triggered (signalled, never woke), Running (woke, did not finish), … */
      state: string;
    }
  | {
      /** `JackTimedDriver::Process XRun = N usec` (dummy, loopback) or `**** alsa_pcm: xrun of at least N msecs` (ALSA). */
      kind: 'driver-late';
      delayUs: number;
      driver: 'timed' | 'alsa';
    }
  | {
      /** `Process: graph not finished!` */
      kind: 'graph-late';
    };

const CLIENT_LATE = /JackEngine::XRun: client = (.+) was not finished, state = (\w+)/;
const TIMED_DRIVER = /JackTimedDriver::Process XRun = (-?\d+) usec/;
const ALSA_DRIVER = /alsa_pcm: xrun of at least ([\d.]+) msecs/;

/** Reads one line of jackd's output; null when it says nothing about an xrun. */
export function parseJackLogLine(line: string): JackLogEvent | null {
  const c = CLIENT_LATE.exec(line);
  if (c) return { kind: 'client-late', client: c[1]!.trim(), state: c[2]! };
  const t = TIMED_DRIVER.exec(line);
  if (t) return { kind: 'driver-late', delayUs: Number(t[1]), driver: 'timed' };
  const a = ALSA_DRIVER.exec(line);
  if (a) return { kind: 'driver-late', delayUs: Math.round(Number(a[1]) * 1000), driver: 'alsa' };
  if (line.includes('Process: graph not finished!')) return { kind: 'graph-late' };
  return null;
}
