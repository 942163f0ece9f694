// A read-only JACK client: registers with a running server (never starts one), owns no
// ports and no process callback (so it is not part of the graph and cannot cause an xrun),
// records each xrun callback with JACK's delayed µs and the DSP load at that moment, and
// samples the DSP load and the client list. The IO shell over libjack.ts.
import koffi from 'koffi';
import { XrunhuntError } from '../errors.js';
import { groupPortsByClient, type JackGraphClient } from './jack-clients.js';
import type { JackXrunCallback } from './jack-incidents.js';
import type { JackServerInfo } from './jack-view.js';
import {
  JACK_OPTIONS,
  jackStatusNames,
  loadLibJack,
  takeJackMessages,
  type JackClientHandle,
} from './libjack.js';

/** How long a close may take before the observer gives up on it (the server may be hung). */
const CLOSE_TIMEOUT_MS = 3000;

export interface JackObserverOptions {
  /** JACK server name (JackServerName); null: the default (JACK_DEFAULT_SERVER or "default"). */
  server: string | null;
  /** The name asked for; JACK makes it unique (`xrunhunt-01`, …). */
  clientName: string;
  /** Milliseconds since the run start. */
  now: () => number;
}

export interface JackObserver {
  readonly server: JackServerInfo;
  /** The name JACK gave this client. */
  readonly clientName: string;
  /** Every xrun callback so far, oldest first. */
  readonly callbacks: JackXrunCallback[];
  /** Called after each xrun callback is recorded. */
  onXrun(listener: (x: JackXrunCallback) => void): void;
  /** Why the server dropped us (jack_on_shutdown), null while connected. */
  readonly shutdownReason: string | null;
  /** jack_cpu_load() now, %. */
  dspLoad(): number;
  /** Whether a client of that name is registered now (ports or not). */
  hasClient(name: string): boolean;
  /** The clients with ports, now. */
  clients(): JackGraphClient[];
  /** Unregisters from the server (idempotent); resolves even when the server hangs. */
  close(): Promise<void>;
}

/** libjack's own first word on it ("Cannot connect to server socket err = ..."), quoted. */
function said(messages: string[]): string {
  const first = messages[0];
  return first ? `; libjack said: "${first}"` : '';
}

/** Connects to a running JACK server as a passive observer, or throws a clear XrunhuntError. */
export function openJackObserver(o: JackObserverOptions): JackObserver {
  const { lib, types } = loadLibJack();
  const status: [number] = [0];
  takeJackMessages();
  const client: JackClientHandle = lib.clientOpen(
    o.clientName,
    JACK_OPTIONS.NoStartServer,
    status,
    o.server,
  );
  const where = o.server === null ? 'the default JACK server' : `the JACK server "${o.server}"`;
  if (client === null)
    throw new XrunhuntError(
      'not-found',
      `cannot connect to ${where}: jack_client_open failed (${jackStatusNames(status[0]).join(', ') || `status 0x${status[0].toString(16)}`})${said(takeJackMessages())}`,
      {
        hint:
          'start jackd first (xrunhunt never starts one; e.g. bash scripts/jack-dummy.sh start), ' +
          'or name the running server with --jack-server NAME (jackd -n NAME)',
      },
    );
  const callbacks: JackXrunCallback[] = [];
  const listeners: ((x: JackXrunCallback) => void)[] = [];
  let shutdownReason: string | null = null;
  let closed: Promise<void> | null = null;
  // JACK calls both from its own threads; koffi queues them to this (the main) thread and the
  // calling JACK thread waits meanwhile: neither is JACK's real-time thread (no process callback).
  const xrunCb = koffi.register((): number => {
    const x: JackXrunCallback = {
      atMs: o.now(),
      delayedUs: lib.getXrunDelayedUsecs(client),
      dspLoadPct: lib.cpuLoad(client),
    };
    callbacks.push(x);
    for (const l of listeners) {
      try {
        l(x);
      } catch {
        // A listener's bug must not reach JACK's thread.
      }
    }
    return 0;
  }, types.xrun);
  const shutdownCb = koffi.register((): void => {
    shutdownReason = 'the JACK server shut down (or dropped this client)';
  }, types.shutdown);
  lib.setXrunCallback(client, xrunCb, null);
  lib.onShutdown(client, shutdownCb, null);
  const unregister = (): void => {
    koffi.unregister(xrunCb);
    koffi.unregister(shutdownCb);
  };
  if (lib.activate(client) !== 0) {
    lib.clientClose(client);
    unregister();
    throw new XrunhuntError('device', `${where} refused to activate xrunhunt's observer client`, {
      hint: 'see jackd\'s output for why (e.g. "Cannot activate client")',
    });
  }
  const sampleRate = lib.getSampleRate(client);
  const bufferFrames = lib.getBufferSize(client);
  const server: JackServerInfo = {
    name: o.server,
    version: lib.versionString(),
    sampleRate,
    bufferFrames,
    periodMs: sampleRate > 0 ? (bufferFrames / sampleRate) * 1000 : 0,
    realtime: lib.isRealtime(client) !== 0,
  };
  return {
    server,
    clientName: lib.getClientName(client),
    callbacks,
    onXrun: (l) => void listeners.push(l),
    get shutdownReason() {
      return shutdownReason;
    },
    dspLoad: () => lib.cpuLoad(client),
    hasClient: (name) => lib.hasClient(client, name),
    clients: () =>
      groupPortsByClient(
        lib.takePortNames(lib.getPorts(client, null, null, 0)).map((name) => ({
          name,
          flags: lib.portFlags(lib.portByName(client, name)),
        })),
      ),
    close() {
      // On koffi's worker thread: a callback JACK fires while it closes can still run here.
      closed ??= Promise.race([
        lib.clientCloseAsync(client).then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), CLOSE_TIMEOUT_MS).unref()),
      ]).then((done) => {
        if (done) unregister();
      });
      return closed;
    },
  };
}
