// The upload receiver behind `xrunhunt serve`: POST one bundle (raw JSON or gzip), get it
// checked and written atomically into the inbox under its content hash. Order of checks,
// cheapest first: method/path → rate limit (also slows token guessing) → token → declared
// size → uploads open for this client → body (size cap, deadline and minimum rate, global
// body-bytes budget) → admission (a processing slot and a reservation of decompressed
// bytes, taken only now that the body is here) → async bounded inflate → JSON/schema →
// write. No part of the request (path, headers, body fields) ever becomes part of a file
// name, and every client-supplied text in a log line or answer is escaped.
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { XrunhuntError, errnoCode } from '../errors.js';
import {
  createAdmissionGate,
  type AdmissionGate,
  type AdmissionTicket,
} from '../net/admission-gate.js';
import { DEFAULT_BODY_DEADLINE, type BodyDeadlinePolicy } from '../net/body-deadline.js';
import { readBodyBounded } from '../net/body-reader.js';
import { gzipDeclaredSize, inflateBounded } from '../net/bounded-inflate.js';
import { createByteBudget } from '../net/byte-budget.js';
import { clientKey, forwardedClient } from '../net/client-key.js';
import { createPerClientLimit } from '../net/per-client-limit.js';
import { SECURITY_HEADERS } from '../net/security-headers.js';
import { createSlowUploadRegistry } from '../net/slow-upload-registry.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { bundleHash } from './content-hash.js';
import { isGzip, parseBundleBytes } from './read.js';
import {
  bundleJsonSchemaText,
  PUBLISHED_VERSIONS,
  publishedSchemaText,
} from './schema-document.js';
import { createRateLimiter, type RateLimitConfig } from './rate-limit.js';
import { writeFileAtomic } from './write.js';

/** Default largest upload (bytes): a gzipped bundle of a long session is well under 1 MiB. */
export const DEFAULT_MAX_UPLOAD = 8 * 1024 * 1024;
/** Largest decompressed bundle the receiver parses (bytes); bounds a gzip bomb's cost. */
export const MAX_DECODED = 32 * 1024 * 1024;
/** Node's own whole-request guard (ms); the body deadline (30 s) answers first. */
export const REQUEST_TIMEOUT_MS = 40_000;
/** Headers must be complete this long after the connection opened (ms). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node checks the header and request timeouts (ms): the cut comes within this of them. */
export const TIMEOUT_CHECK_INTERVAL_MS = 500;
/** How often a client at its limit looks for a place again (ms). */
const PLACE_POLL_MS = 100;
/** Retry-After (s) sent with 507 when the inbox's file system is full. */
export const FULL_INBOX_RETRY_S = 60;

/** The receiver's bounds; each has a default (see DEFAULT_RECEIVER_LIMITS). */
export interface ReceiverLimits {
  /** Bundles processed (inflate, parse, validate, write) at once. */
  processingSlots: number;
  /** Decompressed bytes reserved across all uploads being processed. */
  decodedBytesBudget: number;
  /** Body bytes held in memory across all uploads (arriving or waiting). */
  bodyBytesBudget: number;
  /** Uploads open at once from one client (IPv4 address, IPv6 /64). */
  uploadsPerClient: number;
  /**
   * A client at its limit may displace its slowest upload once that one has been open this
   * long (ms) and is below the body's minimum rate (slow-upload-registry.ts).
   */
  displaceAfterMs: number;
  /** How long a client at its limit waits for a place before 429 (ms); > displaceAfterMs. */
  placeWaitMs: number;
  /** Uploads whose body has arrived, waiting for admission; more get 503. */
  maxWaiting: number;
  /** Longest wait for admission before 503 (ms). */
  maxWaitMs: number;
  body: BodyDeadlinePolicy;
}

/**
 * Default bounds. Memory: 64 MiB of bodies + 64 MiB of decompressed JSON (two 32 MiB bundles
 * at once; parsing costs a few times the text), whatever the number of clients.
 */
export const DEFAULT_RECEIVER_LIMITS: ReceiverLimits = {
  processingSlots: 32,
  decodedBytesBudget: 64 * 1024 * 1024,
  bodyBytesBudget: 64 * 1024 * 1024,
  uploadsPerClient: 8,
  displaceAfterMs: 1000,
  placeWaitMs: 2000,
  maxWaiting: 1024,
  maxWaitMs: 15_000,
  body: DEFAULT_BODY_DEADLINE,
};

export interface ReceiverOptions {
  inbox: string;
  /** Shared secret; when set, requests need "Authorization: Bearer <token>". */
  token: string | null;
  maxBytes: number;
  rateLimit: RateLimitConfig;
  limits?: Partial<ReceiverLimits>;
  now?: () => number;
  /** Called once per answered upload request (for logs). */
  onResult?: (r: UploadResult) => void;
  /** Proxies whose X-Forwarded-For names the client (--trust-proxy; net/client-key.ts). */
  trustedProxies?: ReadonlySet<string>;
  /** A shared fleet store: duplicates are judged by it, and accepted files ingested into it. */
  store?: ReceiverStore;
  /** Answers GET and HEAD requests other than /healthz (serve --web mounts the web view). */
  otherGet?: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * What the receiver asks of a shared fleet store (serve --store). An upload is ACCEPTED once
 * it is on disk in the inbox (written atomically, fsynced); `stored` then tries to ingest
 * it: 'duplicate' when another receiver's copy won, 'deferred' when the store is unreachable
 * (the file stays in the inbox and is ingested when it is back).
 */
export interface ReceiverStore {
  hasBundle(hash: string): Promise<boolean>;
  stored(file: string): Promise<'added' | 'duplicate' | 'deferred'>;
}

export type UploadOutcome = 'accepted' | 'duplicate' | 'rejected' | 'aborted' | 'failed';

export interface UploadResult {
  /** HTTP status sent; 499 (never sent) when the client hung up before its body arrived. */
  status: number;
  outcome: UploadOutcome;
  client: string;
  /** Content hash of an accepted/duplicate bundle. */
  id?: string;
  bytes?: number;
  /** How long it waited for admission (ms), when it had to wait. */
  queuedMs?: number;
  /** From the request's arrival to its answer (ms). */
  durationMs?: number;
  /** Why it was refused, control characters escaped (it may quote the client's data). */
  error?: string;
}

/** Constant-time token comparison (hashing first makes lengths equal and leaks nothing). */
export function tokenMatches(expected: string, given: string): boolean {
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

function send(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body) + '\n';
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * Decompressed bytes to reserve for a body: its own size for JSON; for gzip what the trailer
 * says, within the per-bundle cap (a truncated or lying trailer is caught while inflating).
 */
function decodedReservation(body: Buffer): number {
  if (!isGzip(body)) return body.length;
  const declared = gzipDeclaredSize(body) ?? MAX_DECODED;
  return Math.min(MAX_DECODED, Math.max(4096, declared));
}

type Admission = { ticket: AdmissionTicket; queued: boolean } | 'queue-full' | 'timeout';

/** Waits for admission at most `waitMs`. */
function admit(gate: AdmissionGate, bytes: number, waitMs: number): Promise<Admission> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const r = gate.request(bytes, (ticket) => {
      clearTimeout(timer);
      resolve({ ticket, queued: true });
    });
    if (r.kind === 'granted') resolve({ ticket: r.ticket, queued: false });
    else if (r.kind === 'refused') resolve('queue-full');
    else {
      timer = setTimeout(() => {
        r.cancel();
        resolve('timeout');
      }, waitMs);
    }
  });
}

/** Bundle JSON bytes of a body, inflated within the ticket (grown once if the trailer lied). */
async function decodedBytes(
  body: Buffer,
  ticket: AdmissionTicket,
  gate: AdmissionGate,
): Promise<Buffer | { status: number; error: string }> {
  if (!isGzip(body)) return body;
  let out = await inflateBounded(body, ticket.bytes, ticket.bytes);
  if (!out.ok && out.reason === 'too-large' && ticket.bytes < MAX_DECODED) {
    // The trailer understated the size (or the gzip has several members): one more try
    // with the full per-bundle cap, only if that memory is free right now.
    if (!gate.grow(ticket, MAX_DECODED)) {
      return { status: 503, error: 'server busy: no memory free to decompress this bundle now' };
    }
    out = await inflateBounded(body, MAX_DECODED, MAX_DECODED);
  }
  if (!out.ok) {
    const detail =
      out.reason === 'too-large' ? `it decompresses to more than ${MAX_DECODED} bytes` : out.detail;
    return { status: 400, error: `bundle: ${detail}` };
  }
  if (isGzip(out.bytes)) {
    return { status: 400, error: 'bundle: gzip inside gzip; compress the JSON once' };
  }
  return out.bytes;
}

/** Whether a write failed because the inbox's file system is full (or over quota). */
function isNoSpace(err: unknown): boolean {
  const code = errnoCode(err);
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** Counters shown at GET /healthz (for monitors and tests). */
export interface ReceiverHealth {
  ok: true;
  inFlight: number;
  waiting: number;
  decodedBytes: number;
  bodyBytes: number;
  clients: number;
}

/** Builds the request handler (exported for tests that drive it on a real server). */
export function createUploadHandler(
  options: ReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const now = options.now ?? Date.now;
  const limits: ReceiverLimits = { ...DEFAULT_RECEIVER_LIMITS, ...options.limits };
  const limiter = createRateLimiter(options.rateLimit);
  const perClient = createPerClientLimit(limits.uploadsPerClient);
  const slowUploads = createSlowUploadRegistry({
    minAgeMs: limits.displaceAfterMs,
    minBytesPerSec: limits.body.minBytesPerSec,
  });
  /** Takes one of the client's places; the returned release is safe to call twice. */
  const takePlace = (key: string): (() => void) | null => {
    if (!perClient.tryTake(key)) return null;
    let held = true;
    return () => {
      if (held) perClient.release(key);
      held = false;
    };
  };
  const bodyBudget = createByteBudget(limits.bodyBytesBudget);
  const gate = createAdmissionGate({
    slots: limits.processingSlots,
    bytes: limits.decodedBytesBudget,
    maxWaiting: limits.maxWaiting,
  });
  const report = (r: UploadResult): void => options.onResult?.(r);
  const health = (): ReceiverHealth => {
    const g = gate.stats();
    return {
      ok: true,
      inFlight: g.slotsInUse,
      waiting: g.waiting,
      decodedBytes: g.bytesInUse,
      bodyBytes: bodyBudget.inUse(),
      clients: perClient.clients(),
    };
  };

  const trusted = options.trustedProxies ?? new Set<string>();
  return (req, res) => {
    const started = now();
    const client =
      forwardedClient(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted) ??
      'unknown';
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    if (req.method === 'GET' && path === '/healthz') {
      send(res, 200, { ...health() });
      return;
    }
    if (req.method === 'GET' && path === '/schema') {
      // The published format, so a client (or a curious human) can check bundles before sending:
      // the newest, or an older version's frozen file with ?v=N.
      const asked = new URLSearchParams(url.slice(path.length + 1)).get('v');
      const text = asked === null ? bundleJsonSchemaText() : publishedSchemaText(Number(asked));
      if (text === null) {
        send(res, 404, {
          error: `no bundle schema version ${JSON.stringify(asked)}: published are ${PUBLISHED_VERSIONS.join(', ')} (GET /schema for the newest, /schema?v=1 for format 1)`,
        });
        return;
      }
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': 'application/schema+json',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
      return;
    }
    if (options.otherGet && (req.method === 'GET' || req.method === 'HEAD')) {
      options.otherGet(req, res);
      return;
    }
    const result = (r: UploadResult): void => report({ ...r, durationMs: now() - started });
    if (path !== '/' && path !== '/bundles') {
      send(res, 404, {
        error: 'not found: POST bundles to / or /bundles (GET /schema: the format)',
      });
      return;
    }
    if (req.method !== 'POST') {
      send(
        res,
        405,
        { error: `method ${quoteUntrusted(req.method ?? '')} not allowed: POST one bundle` },
        { allow: 'POST' },
      );
      return;
    }
    const reject = (status: number, error: string, headers: Record<string, string> = {}): void => {
      // Do not read a rejected body; close the connection so the client stops sending.
      const safe = quoteUntrusted(error, 1000);
      send(res, status, { error: safe }, { connection: 'close', ...headers });
      req.resume();
      result({ status, outcome: status === 500 ? 'failed' : 'rejected', client, error: safe });
    };
    const key = clientKey(client);
    // Keyed like the per-client limit: a host with a /64 cannot dodge it with fresh addresses.
    const rate = limiter.take(key, now());
    if (!rate.ok) {
      const secs = Math.max(1, Math.ceil(rate.retryAfterMs / 1000));
      reject(429, `too many uploads from ${client}: retry in ${secs} s`, {
        'retry-after': String(secs),
      });
      return;
    }
    if (options.token !== null) {
      const auth = req.headers['authorization'] ?? '';
      const m = /^Bearer\s+(.+)$/i.exec(auth);
      if (!m || !tokenMatches(options.token, m[1]!.trim())) {
        reject(
          401,
          auth
            ? 'wrong token'
            : 'this server needs a token: send "Authorization: Bearer <token>" (xrunhunt submit --token FILE)',
          {
            'www-authenticate': 'Bearer realm="xrunhunt"',
          },
        );
        return;
      }
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      reject(
        413,
        `bundle of ${declared} bytes is larger than this server's limit of ${options.maxBytes} bytes`,
      );
      return;
    }
    void (async () => {
      const place = await placeFor(key, req);
      if (place === 'gone') {
        result({
          status: 499,
          outcome: 'aborted',
          client,
          error: 'the client closed the connection while waiting for a place',
        });
        return;
      }
      if (place === null) {
        reject(
          429,
          `too many uploads at once from ${client} (at most ${limits.uploadsPerClient}): retry in 1 s`,
          { 'retry-after': '1' },
        );
        return;
      }
      res.once('close', place);
      if (req.socket.destroyed) place(); // closed before the listener was there
      await receiveUpload(req, res, client, key, place, reject, result);
    })();
  };

  /**
   * One of the client's places: at once, or by displacing a stalled upload of the same
   * client, or — when its uploads are all too young to judge — once one of those becomes
   * displaceable or ends (polled, at most placeWaitMs). Null when none came, 'gone' when
   * the client hung up meanwhile.
   */
  async function placeFor(
    key: string,
    req: IncomingMessage,
  ): Promise<(() => void) | null | 'gone'> {
    const deadline = now() + limits.placeWaitMs;
    for (;;) {
      if (req.socket.destroyed) return 'gone';
      const place = takePlace(key);
      if (place !== null) return place;
      if (slowUploads.displaceOne(key, now())) return takePlace(key);
      if (now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, PLACE_POLL_MS));
    }
  }

  async function receiveUpload(
    req: IncomingMessage,
    res: ServerResponse,
    client: string,
    key: string,
    releasePlace: () => void,
    reject: (status: number, error: string, headers?: Record<string, string>) => void,
    result: (r: UploadResult) => void,
  ): Promise<void> {
    const arrived = await readBodyBounded(req, {
      maxBytes: options.maxBytes,
      deadline: limits.body,
      budget: bodyBudget,
      now,
      register: (h) =>
        slowUploads.add(key, {
          startedMs: h.startedMs,
          receivedBytes: h.receivedBytes,
          displace: () => {
            h.cut(
              `displaced by a newer upload from ${client}: this one sent ${h.receivedBytes()} bytes in ${((now() - h.startedMs) / 1000).toFixed(1)} s`,
            );
            releasePlace();
          },
        }),
    });
    switch (arrived.kind) {
      case 'too-large':
        reject(413, `bundle is larger than this server's limit of ${options.maxBytes} bytes`);
        return;
      case 'too-slow':
        reject(408, `upload too slow: ${arrived.reason}`);
        return;
      case 'over-budget':
        reject(503, 'server busy: too many bundle bytes arriving at once', { 'retry-after': '5' });
        return;
      case 'aborted':
        result({
          status: 499,
          outcome: 'aborted',
          client,
          bytes: arrived.receivedBytes,
          error: `the client closed the connection after ${arrived.receivedBytes} bytes of the body`,
        });
        return;
      case 'complete':
        break;
    }
    const body = arrived.body;
    try {
      if (body.length === 0) {
        reject(400, 'empty body: POST one bundle (JSON or gzip)');
        return;
      }
      const waitStart = now();
      const admission = await admit(gate, decodedReservation(body), limits.maxWaitMs);
      if (admission === 'queue-full' || admission === 'timeout') {
        reject(
          503,
          admission === 'timeout'
            ? 'server busy: waited too long for a free slot'
            : 'server busy: too many uploads waiting',
          { 'retry-after': '5' },
        );
        return;
      }
      const { ticket } = admission;
      const waited = admission.queued ? { queuedMs: now() - waitStart } : {};
      let hash: string;
      try {
        const json = await decodedBytes(body, ticket, gate);
        if (!Buffer.isBuffer(json)) {
          reject(json.status, json.error, json.status === 503 ? { 'retry-after': '5' } : {});
          return;
        }
        hash = bundleHash(parseBundleBytes(json, 'bundle', MAX_DECODED));
      } catch (err) {
        if (err instanceof XrunhuntError) {
          reject(400, err.message);
          return;
        }
        throw err;
      } finally {
        gate.release(ticket);
      }
      const name = `${hash}.${isGzip(body) ? 'json.gz' : 'json'}`;
      const target = join(options.inbox, name);
      const other = join(options.inbox, `${hash}.${isGzip(body) ? 'json' : 'json.gz'}`);
      const known = options.store
        ? await options.store.hasBundle(hash).catch(() => false)
        : existsSync(target) || existsSync(other);
      if (known) {
        send(res, 200, { status: 'duplicate', id: hash });
        result({
          status: 200,
          outcome: 'duplicate',
          client,
          id: hash,
          bytes: body.length,
          ...waited,
        });
        return;
      }
      const onDisk = existsSync(target) ? target : existsSync(other) ? other : null;
      if (onDisk === null) await writeFileAtomic(target, body);
      const stored = options.store ? await options.store.stored(onDisk ?? target) : 'added';
      if (stored === 'duplicate') {
        send(res, 200, { status: 'duplicate', id: hash });
        result({
          status: 200,
          outcome: 'duplicate',
          client,
          id: hash,
          bytes: body.length,
          ...waited,
        });
        return;
      }
      send(res, 201, { status: 'accepted', id: hash });
      result({ status: 201, outcome: 'accepted', client, id: hash, bytes: body.length, ...waited });
    } catch (err) {
      if (isNoSpace(err)) {
        send(
          res,
          507,
          { error: "the server's inbox is full: try again later" },
          { 'retry-after': String(FULL_INBOX_RETRY_S), connection: 'close' },
        );
        result({
          status: 507,
          outcome: 'failed',
          client,
          error: `inbox full: ${quoteUntrusted((err as Error).message)}`,
        });
        return;
      }
      send(res, 500, { error: 'the server could not store the bundle' });
      result({
        status: 500,
        outcome: 'failed',
        client,
        error: quoteUntrusted((err as Error).message),
      });
    } finally {
      arrived.release();
    }
  }
}

/** Parses "127.0.0.1:8734", ":8734", "[::1]:8734" or "8734" into host and port. */
export function parseListen(text: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-f:]+)\]|([^:[\]]*))?:?(\d{1,5})$/i.exec(text.trim());
  if (!m) return null;
  const port = Number(m[3]);
  if (port > 65535) return null;
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** Whether a listen host only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** Starts the receiver; resolves with the bound address once listening. */
export async function startReceiver(
  options: ReceiverOptions & { host: string; port: number },
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer(
    {
      requestTimeout: REQUEST_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    createUploadHandler(options),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      reject(
        new XrunhuntError(
          'resource',
          `cannot listen on ${options.host}:${options.port}: ${(err as Error).message}`,
          {
            hint: 'choose another port with --listen HOST:PORT',
          },
        ),
      );
    });
    server.listen(options.port, options.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    server,
    url: `http://${host}:${addr.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
