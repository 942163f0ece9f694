// watch's JACK probe (`watch --jack`): connects xrunhunt's passive observer client to a running
// JACK server at apply (registering a client is a change to the user's JACK graph, never to a
// machine setting, so nothing is journaled), follows jackd's log when given (--jack-log),
// emits each xrun callback and each settled incident as it happens, samples the DSP load and
// the client list, and unregisters at restore — on every exit path the lifecycle has (a
// kill -9 leaves nothing behind: jackd drops a client whose socket closed).
import { KeptList, MAX_KEPT_KERNEL_EVENTS } from '../run/bounded.js';
import type { BundleFile, RunProbe } from '../run/probe.js';
import type { JackGraphClient } from '../jack/jack-clients.js';
import {
  jackGapMs,
  joinJackIncidents,
  JACK_LOG_LAG_MS,
  type JackIncident,
  type JackXrunCallback,
  type StampedJackLogEvent,
} from '../jack/jack-incidents.js';
import { followJackLog, type JackLogTail } from '../jack/jack-log-tail.js';
import { openJackObserver, type JackObserver } from '../jack/jack-observer.js';
import {
  rankJackClients,
  renderJackIncidentLine,
  summarizeDspLoad,
  type JackClientSeen,
  type JackServerInfo,
  type JackView,
} from '../jack/jack-view.js';

/** What watch --jack emits on its NDJSON stream (and events.ndjson). */
export type JackWatchEvent =
  | {
      type: 'jack-start';
      timeMs: number;
      server: JackServerInfo;
      /** The name JACK gave xrunhunt's observer (it owns no ports). */
      clientName: string;
      logFile: string | null;
      /** CLOCK_MONOTONIC at the watch start, ns: timeMs + this is the monotonic time. */
      monotonicStartNs: number;
      clients: JackGraphClient[];
    }
  | { type: 'jack-xrun'; timeMs: number; delayedUs: number; dspLoadPct: number }
  | { type: 'jack-incident'; timeMs: number; incident: JackIncident; line: string }
  | { type: 'jack-clients'; timeMs: number; clients: JackGraphClient[] }
  | { type: 'jack-shutdown'; timeMs: number; reason: string };

export interface JackProbeOptions {
  server: string | null;
  logFile: string | null;
  emit: (e: JackWatchEvent) => void;
  /** Called with each incident line for the human output; null: none. */
  humanOut: ((text: string) => void) | null;
  /** Called once per settled incident (watch's --until-xruns counts them). */
  onIncident?: (i: JackIncident) => void;
}

export interface JackProbe extends RunProbe {
  /** JACK's view of the run (null when the probe never connected). */
  view(): JackView | null;
  /** The server connected to (null before apply). */
  server(): JackServerInfo | null;
  bundleFiles(): BundleFile[];
}

/** DSP load and client list sampling, and settling incidents for the live output. */
const SAMPLE_MS = 1000;
const SETTLE_TICK_MS = 250;
/** Time for jackd's last lines to reach its log before the last read, ms. */
const FINAL_LOG_WAIT_MS = 150;

/** Builds the probe; nothing is opened before apply. */
export function createJackProbe(o: JackProbeOptions): JackProbe {
  let observer: JackObserver | null = null;
  let tail: JackLogTail | null = null;
  const callbacks = new KeptList<JackXrunCallback>(MAX_KEPT_KERNEL_EVENTS);
  const dsp: number[] = [];
  const seen = new Map<string, JackClientSeen>();
  let lastClients = '';
  let emitted = 0;
  let timers: NodeJS.Timeout[] = [];
  let elapsed = (): number => 0;
  let shutdownSaid = false;
  // Set at collect: what the run saw ends there, so the live incidents and the report agree.
  let frozenLog: StampedJackLogEvent[] | null = null;

  const join = (): JackIncident[] =>
    observer
      ? joinJackIncidents(callbacks.items, frozenLog ?? tail?.events ?? [], {
          gapMs: jackGapMs(observer.server.periodMs),
          lagMs: JACK_LOG_LAG_MS,
          logGiven: tail !== null,
        })
      : [];

  const sampleClients = (): void => {
    if (!observer || observer.shutdownReason) return;
    const now = elapsed();
    const clients = observer.clients();
    for (const c of clients) {
      const s = seen.get(c.name);
      if (s) Object.assign(s, { inputs: c.inputs, outputs: c.outputs, goneMs: null });
      else seen.set(c.name, { ...c, firstSeenMs: now, goneMs: null });
    }
    for (const s of seen.values())
      if (s.goneMs === null && !clients.some((c) => c.name === s.name)) s.goneMs = now;
    const key = JSON.stringify(clients);
    if (key !== lastClients) {
      if (lastClients !== '') o.emit({ type: 'jack-clients', timeMs: now, clients });
      lastClients = key;
    }
  };

  const sample = (): void => {
    if (!observer) return;
    if (observer.shutdownReason) {
      if (!shutdownSaid)
        o.emit({ type: 'jack-shutdown', timeMs: elapsed(), reason: observer.shutdownReason });
      shutdownSaid = true;
      return;
    }
    dsp.push(observer.dspLoad());
    sampleClients();
  };

  // An incident is settled once nothing can join it any more (its gap and the log's lag passed).
  const settle = (final: boolean): void => {
    if (!observer) return;
    const horizon = elapsed() - jackGapMs(observer.server.periodMs) - JACK_LOG_LAG_MS;
    const incidents = join();
    for (; emitted < incidents.length; emitted++) {
      const i = incidents[emitted]!;
      if (!final && i.endMs > horizon) break;
      const line = renderJackIncidentLine(i);
      o.emit({ type: 'jack-incident', timeMs: elapsed(), incident: i, line });
      o.humanOut?.(line + '\n');
      o.onIncident?.(i);
    }
  };

  const stopTimers = (): void => {
    for (const t of timers) clearInterval(t);
    timers = [];
  };

  return {
    name: 'JACK observer',
    apply(ctx) {
      elapsed = ctx.elapsed;
      // The log first: a bad --jack-log path fails before a client is registered.
      tail = o.logFile === null ? null : followJackLog(o.logFile, ctx.elapsed);
      try {
        observer = openJackObserver({ server: o.server, clientName: 'xrunhunt', now: ctx.elapsed });
      } catch (err) {
        tail?.close();
        tail = null;
        throw err;
      }
      observer.onXrun((x) => {
        if (frozenLog) return;
        callbacks.push(x);
        o.emit({
          type: 'jack-xrun',
          timeMs: x.atMs,
          delayedUs: x.delayedUs,
          dspLoadPct: x.dspLoadPct,
        });
      });
      sampleClients();
      o.emit({
        type: 'jack-start',
        timeMs: ctx.elapsed(),
        server: observer.server,
        clientName: observer.clientName,
        logFile: o.logFile,
        monotonicStartNs: Number(ctx.t0),
        clients: [...seen.values()].map(({ name, inputs, outputs }) => ({ name, inputs, outputs })),
      });
    },
    run() {
      timers = [setInterval(sample, SAMPLE_MS), setInterval(() => settle(false), SETTLE_TICK_MS)];
    },
    async collect() {
      stopTimers();
      await new Promise((r) => setTimeout(r, FINAL_LOG_WAIT_MS));
      tail?.poll();
      frozenLog = [...(tail?.events ?? [])];
      settle(true);
    },
    async restore() {
      stopTimers();
      try {
        tail?.close();
      } catch {
        // The log file vanished: nothing is held.
      }
      await observer?.close();
    },
    view,
    server: () => observer?.server ?? null,
    bundleFiles(): BundleFile[] {
      const v = view();
      return v ? [{ name: 'jack.json', text: JSON.stringify(v, null, 2) + '\n' }] : [];
    },
  };

  function view(): JackView | null {
    if (!observer) return null;
    const incidents = join();
    const limitations: string[] = [];
    if (callbacks.dropped > 0)
      limitations.push(
        `${callbacks.dropped} xrun callbacks beyond the first ${MAX_KEPT_KERNEL_EVENTS} were counted, not joined`,
      );
    if (observer.shutdownReason) limitations.push(observer.shutdownReason);
    limitations.push(
      "JACK2's API gives no client's pid (jack_get_client_pid is not implemented on the library side in jackd2 1.9.21); clients are named as JACK names them.",
    );
    return {
      server: observer.server,
      logFile: o.logFile,
      logEvents: (frozenLog ?? tail?.events ?? []).length,
      xrunCallbacks: callbacks.total,
      incidents,
      byClient: rankJackClients(incidents),
      driverIncidents: incidents.filter((i) => i.attribution === 'driver').length,
      unattributedIncidents: incidents.filter(
        (i) => i.attribution === 'unknown' || i.attribution === 'unnamed',
      ).length,
      dspLoad: summarizeDspLoad(dsp),
      clients: [...seen.values()],
      limitations,
    };
  }
}
