// Turns what a JACK observer saw — the server's xrun callbacks (when, JACK's delayed µs, the DSP
// load at that moment) and jackd's own log lines (stamped when read) — into incidents: one per
// burst of xruns, with the client jackd said it was waiting for. Pure: values in, values out.
import type { JackLogEvent } from './jack-log-line.js';

/** One call of the xrun callback xrunhunt registered with the server. */
export interface JackXrunCallback {
  /** Milliseconds since the start of the run, when the callback ran. */
  atMs: number;
  /** jack_get_xrun_delayed_usecs() in the callback. */
  delayedUs: number;
  /** jack_cpu_load() in the callback, %. */
  dspLoadPct: number;
}

/** A parsed jackd log line with the time xrunhunt read it. */
export interface StampedJackLogEvent {
  atMs: number;
  event: JackLogEvent;
}

/**
 * Who an incident is put down to: `client` (jackd named the client it waited for), `driver`
 * (jackd's own driver thread woke late; no client was waited for), `unnamed` (jackd's log was
 * read but said nothing about it), `unknown` (no log given: JACK's API does not say).
 */
export type JackAttribution = 'client' | 'driver' | 'unnamed' | 'unknown';

/** A client jackd named as not finished within one incident. */
export interface JackLateClient {
  client: string;
  /** How many cycles jackd found it not finished. */
  cycles: number;
  /** JACK's timing states it was found in (Triggered: never woke; Running: woke, did not finish). */
  states: string[];
}

/** One burst of JACK xruns, as a user would act on it. */
export interface JackIncident {
  index: number;
  startMs: number;
  endMs: number;
  /** Xrun callbacks in the burst (0: only jackd's log saw it). */
  callbacks: number;
  maxDelayedUs: number | null;
  /** Highest DSP load reported in the burst's callbacks, %. */
  dspLoadPct: number | null;
  lateClients: JackLateClient[];
  /** Largest driver lateness jackd printed in the burst, µs. */
  driverLateUs: number | null;
  attribution: JackAttribution;
  /** The client most often not finished (attribution `client`), else null. */
  client: string | null;
}

export interface JackJoinOptions {
  /** Xruns closer than this belong to one incident (a cascade of late cycles), ms. */
  gapMs: number;
  /** How far a log line's read time may lie from its callback's time and still be paired, ms. */
  lagMs: number;
  /** Whether jackd's log was read at all (decides `unnamed` against `unknown`). */
  logGiven: boolean;
}

/**
 * The burst gap for a JACK period: three periods, at least 50 ms. The floor is not JACK's: the
 * callbacks are stamped when they reach the main thread, and one burst of late cycles reached
 * it with pauses of tens of ms on a box at load 25; a smaller gap split one stall in two.
 */
export function jackGapMs(periodMs: number | null): number {
  return Math.max(50, 3 * (periodMs ?? 0));
}

/** Pairing window: a log line is read up to ~75 ms after its callback ran on a box at load 17. */
export const JACK_LOG_LAG_MS = 250;

/** One xrun as both sides saw it: the callback, jackd's line, or both. */
interface Paired {
  atMs: number;
  callback: JackXrunCallback | null;
  log: JackLogEvent | null;
}

/**
 * Pairs callbacks and log lines in order. jackd2 calls every client's xrun callback once for
 * each xrun line it prints (a late client: JackEngine::NotifyClientXRun; a late driver:
 * NotifyDriverXRun), so the k-th line belongs to the k-th callback; the time window only
 * re-synchronises the two sequences where one of them lost an item.
 */
function pair(
  callbacks: readonly JackXrunCallback[],
  log: readonly StampedJackLogEvent[],
  lagMs: number,
): Paired[] {
  const cs = [...callbacks].sort((a, b) => a.atMs - b.atMs);
  const ls = [...log].sort((a, b) => a.atMs - b.atMs);
  const out: Paired[] = [];
  let i = 0;
  let j = 0;
  while (i < cs.length || j < ls.length) {
    const c = cs[i];
    const l = ls[j];
    if (c && l && Math.abs(l.atMs - c.atMs) <= lagMs) {
      out.push({ atMs: c.atMs, callback: c, log: l.event });
      i++;
      j++;
    } else if (c && (!l || l.atMs > c.atMs)) {
      out.push({ atMs: c.atMs, callback: c, log: null });
      i++;
    } else if (l) {
      out.push({ atMs: l.atMs, callback: null, log: l.event });
      j++;
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

interface Cluster {
  startMs: number;
  endMs: number;
  callbacks: JackXrunCallback[];
  log: JackLogEvent[];
}

/** Joins xrun callbacks and jackd's log lines into incidents, oldest first. */
export function joinJackIncidents(
  callbacks: readonly JackXrunCallback[],
  log: readonly StampedJackLogEvent[],
  o: JackJoinOptions,
): JackIncident[] {
  const clusters: Cluster[] = [];
  for (const p of pair(callbacks, log, o.lagMs)) {
    let c = clusters[clusters.length - 1];
    if (!c || p.atMs - c.endMs > o.gapMs) {
      c = { startMs: p.atMs, endMs: p.atMs, callbacks: [], log: [] };
      clusters.push(c);
    }
    c.endMs = p.atMs;
    if (p.callback) c.callbacks.push(p.callback);
    if (p.log) c.log.push(p.log);
  }
  return clusters.map((c, index) => describe(c, index, o.logGiven));
}

function describe(c: Cluster, index: number, logGiven: boolean): JackIncident {
  const late = new Map<string, JackLateClient>();
  let driverLateUs: number | null = null;
  for (const e of c.log) {
    if (e.kind === 'client-late') {
      const x = late.get(e.client) ?? { client: e.client, cycles: 0, states: [] };
      x.cycles++;
      if (!x.states.includes(e.state)) x.states.push(e.state);
      late.set(e.client, x);
    } else if (e.kind === 'driver-late') {
      driverLateUs = Math.max(driverLateUs ?? 0, e.delayUs);
    }
  }
  const lateClients = [...late.values()].sort((a, b) => b.cycles - a.cycles);
  const attribution: JackAttribution =
    lateClients.length > 0
      ? 'client'
      : driverLateUs !== null
        ? 'driver'
        : logGiven
          ? 'unnamed'
          : 'unknown';
  const max = (xs: number[]): number | null => (xs.length ? Math.max(...xs) : null);
  return {
    index,
    startMs: c.startMs,
    endMs: c.endMs,
    callbacks: c.callbacks.length,
    maxDelayedUs: max(c.callbacks.map((x) => x.delayedUs)),
    dspLoadPct: max(c.callbacks.map((x) => x.dspLoadPct)),
    lateClients,
    driverLateUs,
    attribution,
    client: lateClients[0]?.client ?? null,
  };
}
