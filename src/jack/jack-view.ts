// JACK's own view of a run, as the report and the NDJSON carry it: the server, every xrun
// incident with the client jackd named, a ranking per client, the DSP load and the clients
// seen. Pure: built from what the observer collected.
import type { JackGraphClient } from './jack-clients.js';
import type { JackIncident } from './jack-incidents.js';

/** The server the observer talked to. */
export interface JackServerInfo {
  /** The server name asked for (`--jack-server`), null: the default server. */
  name: string | null;
  version: string;
  sampleRate: number;
  bufferFrames: number;
  periodMs: number;
  realtime: boolean;
}

/** A client seen in the graph during the run. */
export interface JackClientSeen extends JackGraphClient {
  firstSeenMs: number;
  /** When it was last seen; null: still there at the end. */
  goneMs: number | null;
}

/** One line of the per-client ranking. */
export interface JackClientRank {
  client: string;
  /** Incidents in which jackd found it not finished. */
  incidents: number;
  /** Cycles it was found not finished, over all incidents. */
  cycles: number;
}

export interface JackView {
  server: JackServerInfo;
  /** jackd's log read for attribution (`--jack-log`), null when none was given. */
  logFile: string | null;
  /** Xrun lines read from that log. */
  logEvents: number;
  xrunCallbacks: number;
  incidents: JackIncident[];
  byClient: JackClientRank[];
  /** Incidents with no client late: jackd's driver woke late. */
  driverIncidents: number;
  /** Incidents whose client is not known (no log given) or not named by the log. */
  unattributedIncidents: number;
  dspLoad: { samples: number; meanPct: number | null; maxPct: number | null };
  clients: JackClientSeen[];
  limitations: string[];
}

/** Ranks the clients jackd named, most incidents first. */
export function rankJackClients(incidents: readonly JackIncident[]): JackClientRank[] {
  const by = new Map<string, JackClientRank>();
  for (const i of incidents)
    for (const l of i.lateClients) {
      const r = by.get(l.client) ?? { client: l.client, incidents: 0, cycles: 0 };
      r.incidents++;
      r.cycles += l.cycles;
      by.set(l.client, r);
    }
  return [...by.values()].sort((a, b) => b.incidents - a.incidents || b.cycles - a.cycles);
}

/** Mean and maximum of the DSP load samples (%, one decimal). */
export function summarizeDspLoad(samples: readonly number[]): JackView['dspLoad'] {
  if (samples.length === 0) return { samples: 0, meanPct: null, maxPct: null };
  const r1 = (x: number): number => Math.round(x * 10) / 10;
  return {
    samples: samples.length,
    meanPct: r1(samples.reduce((a, b) => a + b, 0) / samples.length),
    maxPct: r1(Math.max(...samples)),
  };
}

const NO_LOG_HINT =
  "JACK's API does not say which client was late; jackd prints it: run jackd with its output to a file (jackd ... >jackd.log 2>&1) and give it with --jack-log jackd.log";

/** One line per incident a user can act on. */
export function renderJackIncidentLine(i: JackIncident): string {
  const at = `JACK xrun at ${(i.startMs / 1000).toFixed(3)} s`;
  const facts: string[] = [];
  if (i.maxDelayedUs !== null) facts.push(`JACK delay ${Math.round(i.maxDelayedUs)} µs`);
  if (i.dspLoadPct !== null) facts.push(`DSP load ${i.dspLoadPct.toFixed(1)} %`);
  if (i.callbacks !== 1) facts.push(`${i.callbacks} xrun callbacks`);
  const tail = facts.length ? `; ${facts.join(', ')}` : '';
  switch (i.attribution) {
    case 'client': {
      const named = i.lateClients
        .map((c) => `\`${c.client}\` (${c.cycles} cycle(s), ${c.states.join('/')})`)
        .join(', ');
      return `${at}: client ${named} was not finished${tail}`;
    }
    case 'driver':
      return `${at}: no client was late; jackd's driver woke ${i.driverLateUs} µs late (the server's own thread was held off)${tail}`;
    case 'unnamed':
      return `${at}: jackd's log names no client for it${tail}`;
    case 'unknown':
      return `${at}: the late client is unknown (no --jack-log)${tail}`;
  }
}

/** The conclusion sentence(s) about JACK. */
export function jackConclusion(v: JackView): string[] {
  const n = v.incidents.length;
  if (n === 0)
    return [
      `JACK (${v.server.name ?? 'default server'}, ${v.server.bufferFrames} frames at ${v.server.sampleRate} Hz): no xruns.`,
    ];
  const out = [
    `JACK (${v.server.name ?? 'default server'}, ${v.server.bufferFrames} frames at ${v.server.sampleRate} Hz): ${n} xrun incident(s) from ${v.xrunCallbacks} xrun callback(s).`,
  ];
  const top = v.byClient[0];
  if (top)
    out.push(
      `The client JACK waited for most often: \`${top.client}\` (${top.incidents} incident(s), ${top.cycles} cycle(s) not finished).`,
    );
  if (v.driverIncidents > 0)
    out.push(
      `${v.driverIncidents} incident(s) with no client late: jackd's own driver thread woke late (a scheduling problem of the server, not of a client).`,
    );
  if (v.unattributedIncidents > 0 && v.logFile === null)
    out.push(`${v.unattributedIncidents} incident(s) not attributed: ${NO_LOG_HINT}.`);
  else if (v.unattributedIncidents > 0)
    out.push(`${v.unattributedIncidents} incident(s) for which ${v.logFile} names no client.`);
  return out;
}

/** The JACK section of the text report. */
export function renderJackSection(v: JackView): string[] {
  const s = v.server;
  const out = [
    '',
    `JACK (libjack ${s.version}; ${s.name ?? 'default server'}, ${s.bufferFrames} frames at ${s.sampleRate} Hz = ${s.periodMs.toFixed(2)} ms, ${s.realtime ? 'real-time' : 'not real-time'})`,
    `  xrun callbacks: ${v.xrunCallbacks}; incidents: ${v.incidents.length}; DSP load mean ${v.dspLoad.meanPct ?? '-'} %, max ${v.dspLoad.maxPct ?? '-'} % (${v.dspLoad.samples} samples)`,
    `  jackd log: ${v.logFile ? `${v.logFile} (${v.logEvents} xrun line(s) read)` : `none given — ${NO_LOG_HINT}`}`,
  ];
  if (v.byClient.length) {
    out.push('  clients jackd waited for:');
    for (const r of v.byClient)
      out.push(`    ${r.client}: ${r.incidents} incident(s), ${r.cycles} cycle(s) not finished`);
  }
  if (v.driverIncidents) out.push(`  driver woke late (no client late): ${v.driverIncidents}`);
  if (v.unattributedIncidents) out.push(`  not attributed: ${v.unattributedIncidents}`);
  for (const i of v.incidents.slice(0, 20)) out.push(`  ${renderJackIncidentLine(i)}`);
  if (v.incidents.length > 20) out.push(`  … ${v.incidents.length - 20} more in --json`);
  out.push(
    `  clients in the graph: ${v.clients.map((c) => `${c.name} (${c.inputs} in/${c.outputs} out${c.goneMs !== null ? `, gone at ${(c.goneMs / 1000).toFixed(1)} s` : ''})`).join(', ') || 'none with ports'}`,
  );
  for (const l of v.limitations) out.push(`  - ${l}`);
  return out;
}
