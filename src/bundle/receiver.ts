// The upload receiver behind `xrunhunt serve`: POST one bundle (raw JSON or gzip), get it
// checked and written atomically into the inbox under its content hash. Order of checks,
// cheapest first: method/path → rate limit (also slows token guessing) → token → declared
// size → streamed size → gzip/JSON/schema validation → write. No part of the request (path,
// headers, body fields) ever becomes part of a file name.
import { createHash, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { XrunhuntError } from '../errors.js';
import { bundleHash } from './content-hash.js';
import { isGzip, parseBundleBytes } from './read.js';
import { createRateLimiter, type RateLimitConfig } from './rate-limit.js';
import { writeFileAtomic } from './write.js';

/** Default largest upload (bytes): a gzipped bundle of a long session is well under 1 MiB. */
export const DEFAULT_MAX_UPLOAD = 8 * 1024 * 1024;
/** Largest decompressed bundle the receiver parses (bytes); bounds a gzip bomb's cost. */
export const MAX_DECODED = 32 * 1024 * 1024;
/** Uploads whose bodies are read at once. Bounds body memory to ~32 × max size. */
export const MAX_IN_FLIGHT = 32;
/** Uploads waiting (body unread, ~16 KiB each in the stream buffer) for a slot; more get 503. */
export const MAX_WAITING = 1024;
/** Longest wait for a slot before answering 503 (ms). */
export const MAX_WAIT_MS = 15_000;
/** Slow clients (slowloris) are cut off after this long (ms). */
export const REQUEST_TIMEOUT_MS = 30_000;
export const HEADERS_TIMEOUT_MS = 10_000;

export interface ReceiverOptions {
  inbox: string;
  /** Shared secret; when set, requests need "Authorization: Bearer <token>". */
  token: string | null;
  maxBytes: number;
  rateLimit: RateLimitConfig;
  now?: () => number;
  /** Called once per answered upload request (for logs). */
  onResult?: (r: UploadResult) => void;
}

export interface UploadResult {
  status: number;
  client: string;
  /** Content hash of an accepted/duplicate bundle. */
  id?: string;
  bytes?: number;
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
  if (res.headersSent) return;
  const text = JSON.stringify(body) + '\n';
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Reads the body up to `max` bytes; resolves null (and stops reading) when it is larger. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > max) {
        done = true;
        chunks.length = 0;
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks, size));
    });
    req.on('error', (err) => {
      if (!done) reject(err);
    });
  });
}

/** Builds the request handler (exported for tests that drive it on a real server). */
export function createUploadHandler(
  options: ReceiverOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const now = options.now ?? Date.now;
  const limiter = createRateLimiter(options.rateLimit);
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  /** Resolves true once a processing slot is ours, false when waited too long. */
  const acquire = (): Promise<boolean> => {
    if (inFlight < MAX_IN_FLIGHT) {
      inFlight++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        inFlight++;
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = waiting.indexOf(wake);
        if (i !== -1) waiting.splice(i, 1);
        resolve(false);
      }, MAX_WAIT_MS);
      waiting.push(wake);
    });
  };
  const release = (): void => {
    inFlight--;
    waiting.shift()?.();
  };
  const result = (r: UploadResult): void => options.onResult?.(r);

  return (req, res) => {
    const client = req.socket.remoteAddress ?? 'unknown';
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    if (req.method === 'GET' && path === '/healthz') {
      send(res, 200, { ok: true, inFlight, waiting: waiting.length });
      return;
    }
    if (path !== '/' && path !== '/bundles') {
      send(res, 404, { error: 'not found: POST bundles to / or /bundles' });
      return;
    }
    if (req.method !== 'POST') {
      send(
        res,
        405,
        { error: `method ${req.method} not allowed: POST one bundle` },
        { allow: 'POST' },
      );
      return;
    }
    const reject = (status: number, error: string, headers: Record<string, string> = {}): void => {
      // Do not read a rejected body; close the connection so the client stops sending.
      send(res, status, { error }, { connection: 'close', ...headers });
      req.resume();
      result({ status, client, error });
    };
    const rate = limiter.take(client, now());
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
    if (waiting.length >= MAX_WAITING) {
      reject(503, 'server busy: too many uploads waiting', { 'retry-after': '5' });
      return;
    }
    void (async () => {
      if (!(await acquire())) {
        reject(503, 'server busy: waited too long for a free slot', { 'retry-after': '5' });
        return;
      }
      try {
        const body = await readBody(req, options.maxBytes);
        if (body === null) {
          reject(413, `bundle is larger than this server's limit of ${options.maxBytes} bytes`);
          return;
        }
        if (body.length === 0) {
          reject(400, 'empty body: POST one bundle (JSON or gzip)');
          return;
        }
        let hash: string;
        try {
          const bundle = parseBundleBytes(body, 'bundle', MAX_DECODED);
          hash = bundleHash(bundle);
        } catch (err) {
          if (err instanceof XrunhuntError) {
            reject(400, err.message);
            return;
          }
          throw err;
        }
        const name = `${hash}.${isGzip(body) ? 'json.gz' : 'json'}`;
        const target = join(options.inbox, name);
        const other = join(options.inbox, `${hash}.${isGzip(body) ? 'json' : 'json.gz'}`);
        if (existsSync(target) || existsSync(other)) {
          send(res, 200, { status: 'duplicate', id: hash });
          result({ status: 200, client, id: hash, bytes: body.length });
          return;
        }
        await writeFileAtomic(target, body);
        send(res, 201, { status: 'accepted', id: hash });
        result({ status: 201, client, id: hash, bytes: body.length });
      } catch (err) {
        send(res, 500, { error: 'the server could not store the bundle' });
        result({ status: 500, client, error: (err as Error).message });
      } finally {
        release();
      }
    })();
  };
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
  const server = createServer(createUploadHandler(options));
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
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
