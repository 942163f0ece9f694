// The FFI boundary to JACK: loads libjack.so.0 (JACK2's client library) through koffi and
// declares every symbol xrunhunt calls, once, with C prototypes (jack/jack.h,
// jack/statistics.h, jack/types.h). Nothing outside src/jack imports this file's koffi handles.
// xrunhunt never starts a JACK server: every open passes JackNoStartServer.
import koffi from 'koffi';
import type { LibraryHandle, TypeObject } from 'koffi';
import { errorMessage, XrunhuntError } from '../errors.js';

/** An opaque `jack_client_t *` as koffi hands it over. */
export type JackClientHandle = unknown;

/** jack_options_t bits (jack/types.h). */
export const JACK_OPTIONS = { NoStartServer: 0x01, UseExactName: 0x02, ServerName: 0x04 } as const;

/** jack_status_t bits (jack/types.h), named as JACK names them. */
export const JACK_STATUS: Readonly<Record<string, number>> = {
  Failure: 0x01,
  InvalidOption: 0x02,
  NameNotUnique: 0x04,
  ServerStarted: 0x08,
  ServerFailed: 0x10,
  ServerError: 0x20,
  NoSuchClient: 0x40,
  LoadFailure: 0x80,
  InitFailure: 0x100,
  ShmFailure: 0x200,
  VersionError: 0x400,
  BackendError: 0x800,
  ClientZombie: 0x1000,
};

/** Names the bits of a jack_status_t (`0x11` → `Failure, ServerFailed`) for error messages. */
export function jackStatusNames(status: number): string[] {
  return Object.entries(JACK_STATUS)
    .filter(([, bit]) => (status & bit) !== 0)
    .map(([name]) => name);
}

/** Typed view of the libjack functions xrunhunt uses (jack_* names without the prefix). */
export interface LibJack {
  /** jack_client_open with JackServerName: the variadic server name is passed as `const char *`. */
  clientOpen(
    name: string,
    options: number,
    status: [number],
    server: string | null,
  ): JackClientHandle;
  clientClose(client: JackClientHandle): number;
  /** The same call on koffi's worker thread, so queued callbacks can still run on the main one. */
  clientCloseAsync(client: JackClientHandle): Promise<number>;
  activate(client: JackClientHandle): number;
  setXrunCallback(client: JackClientHandle, cb: bigint, arg: null): number;
  onShutdown(client: JackClientHandle, cb: bigint, arg: null): void;
  getXrunDelayedUsecs(client: JackClientHandle): number;
  cpuLoad(client: JackClientHandle): number;
  getSampleRate(client: JackClientHandle): number;
  getBufferSize(client: JackClientHandle): number;
  isRealtime(client: JackClientHandle): number;
  getClientName(client: JackClientHandle): string;
  /** Whether a client of that name is registered with the server (jack_get_uuid_for_client_name). */
  hasClient(client: JackClientHandle, name: string): boolean;
  /** NULL-terminated `const char **` of port names, or null; free it with `free`. */
  getPorts(
    client: JackClientHandle,
    portPattern: string | null,
    typePattern: string | null,
    flags: number,
  ): unknown;
  portByName(client: JackClientHandle, name: string): unknown;
  portFlags(port: unknown): number;
  versionString(): string;
  free(ptr: unknown): void;
  /** Reads the NULL-terminated string array jack_get_ports returns (then frees it). */
  takePortNames(ptr: unknown): string[];
}

/** Prototypes of the callbacks xrunhunt registers (koffi.register needs the pointer types). */
export interface JackCallbackTypes {
  xrun: TypeObject;
  shutdown: TypeObject;
}

let cached: { lib: LibJack; types: JackCallbackTypes } | undefined;

// libjack prints its diagnostics to stderr ("Cannot connect to server socket err = ...").
// While a client is opened, handlers set with jack_set_error_function / jack_set_info_function
// keep them instead, so the error can quote them; then libjack's own printers are put back
// (its variables jack_error_callback / jack_info_callback), because later messages come from
// JACK's threads, and a JS handler would make them wait for the main thread (and for ever once
// the process is exiting).
const MAX_KEPT_MESSAGES = 16;
const libMessages: string[] = [];

/** Returns and clears libjack's own messages kept during the last client open. */
export function takeJackMessages(): string[] {
  return libMessages.splice(0, libMessages.length);
}

function messageKeeper(handle: LibraryHandle): <T>(fn: () => T) => T {
  const proto = koffi.pointer(koffi.proto('void xrh_jack_message_cb(const char *msg)'));
  const keep = koffi.register((msg: string): void => {
    libMessages.push(msg);
    if (libMessages.length > MAX_KEPT_MESSAGES) libMessages.shift();
  }, proto);
  const setError = handle.func('void jack_set_error_function(xrh_jack_message_cb *func)');
  const setInfo = handle.func('void jack_set_info_function(xrh_jack_message_cb *func)');
  const errorVar: unknown = handle.symbol('jack_error_callback');
  const infoVar: unknown = handle.symbol('jack_info_callback');
  return <T>(fn: () => T): T => {
    const savedError: unknown = koffi.decode(errorVar, 'void *');
    const savedInfo: unknown = koffi.decode(infoVar, 'void *');
    setError(keep);
    setInfo(keep);
    try {
      return fn();
    } finally {
      koffi.encode(errorVar, 'void *', savedError);
      koffi.encode(infoVar, 'void *', savedInfo);
    }
  };
}

/** Loads libjack once; a missing library is one clear line naming the package to install. */
export function loadLibJack(): { lib: LibJack; types: JackCallbackTypes } {
  if (cached) return cached;
  let handle: LibraryHandle;
  try {
    handle = koffi.load('libjack.so.0');
  } catch (err) {
    throw new XrunhuntError(
      'not-found',
      `cannot load libjack.so.0 (the JACK client library): ${errorMessage(err)}`,
      {
        hint: 'install it: apt-get install libjack-jackd2-0 (Fedora: dnf install jack-audio-connection-kit), or leave out --jack',
        cause: err,
      },
    );
  }
  const keepingMessages = messageKeeper(handle);
  koffi.opaque('jack_client_t');
  koffi.opaque('jack_port_t');
  const types: JackCallbackTypes = {
    xrun: koffi.pointer(koffi.proto('int xrh_jack_xrun_cb(void *arg)')),
    shutdown: koffi.pointer(koffi.proto('void xrh_jack_shutdown_cb(void *arg)')),
  };
  const f = (proto: string): ((...args: never[]) => never) =>
    handle.func(proto) as unknown as (...args: never[]) => never;
  const open = handle.func(
    'jack_client_t *jack_client_open(const char *name, int options, _Out_ int *status, ...)',
  ) as unknown as (...args: unknown[]) => JackClientHandle;
  const close = handle.func('int jack_client_close(jack_client_t *client)');
  const free = f('void jack_free(void *ptr)') as unknown as (p: unknown) => void;
  const uuidFor = handle.func(
    'void *jack_get_uuid_for_client_name(jack_client_t *client, const char *name)',
  ) as unknown as (c: JackClientHandle, name: string) => unknown;
  const getPorts = f(
    'void *jack_get_ports(jack_client_t *client, const char *port_pattern, const char *type_pattern, unsigned long flags)',
  );
  const lib = {
    clientOpen: (name: string, options: number, status: [number], server: string | null) =>
      keepingMessages(() =>
        server === null
          ? open(name, options, status)
          : open(name, options | JACK_OPTIONS.ServerName, status, 'const char *', server),
      ),
    clientClose: (c: JackClientHandle) => close(c) as number,
    clientCloseAsync: (c: JackClientHandle) =>
      new Promise<number>((resolve, reject) => {
        close.async(c, (err: unknown, res: number) => (err ? reject(err) : resolve(res)));
      }),
    activate: f('int jack_activate(jack_client_t *client)'),
    setXrunCallback: f(
      'int jack_set_xrun_callback(jack_client_t *client, xrh_jack_xrun_cb *cb, void *arg)',
    ),
    onShutdown: f(
      'void jack_on_shutdown(jack_client_t *client, xrh_jack_shutdown_cb *cb, void *arg)',
    ),
    getXrunDelayedUsecs: f('float jack_get_xrun_delayed_usecs(jack_client_t *client)'),
    cpuLoad: f('float jack_cpu_load(jack_client_t *client)'),
    getSampleRate: f('uint32_t jack_get_sample_rate(jack_client_t *client)'),
    getBufferSize: f('uint32_t jack_get_buffer_size(jack_client_t *client)'),
    isRealtime: f('int jack_is_realtime(jack_client_t *client)'),
    getClientName: f('const char *jack_get_client_name(jack_client_t *client)'),
    hasClient: (c: JackClientHandle, name: string): boolean => {
      const uuid = uuidFor(c, name);
      if (uuid === null) return false;
      free(uuid);
      return true;
    },
    getPorts,
    portByName: f('jack_port_t *jack_port_by_name(jack_client_t *client, const char *name)'),
    portFlags: f('int jack_port_flags(const jack_port_t *port)'),
    versionString: f('const char *jack_get_version_string()'),
    free,
    takePortNames: (ptr: unknown): string[] => {
      if (ptr === null) return [];
      const names: string[] = [];
      // The array ends with a NULL pointer; a JACK graph has far fewer than 100 000 ports.
      for (let i = 0; i < 100_000; i++) {
        const p = koffi.decode(ptr, i * 8, 'void *') as unknown;
        if (p === null) break;
        names.push(koffi.decode(p, 'char', -1) as string);
      }
      free(ptr);
      return names;
    },
  } as unknown as LibJack;
  cached = { lib, types };
  return cached;
}
