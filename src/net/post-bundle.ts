// The network half of `submit`: POST the bundle, follow at most a few method-keeping
// redirects (redirect-policy.ts), and read at most `maxReplyBytes` of the answer, decoded
// from gzip with the same cap. A collector that streams an endless reply, gzips a bomb, or
// redirects in a loop costs a bounded amount of memory and time, never the user's machine.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { XrunhuntError } from '../errors.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { inflateBounded } from './bounded-inflate.js';
import { MAX_REDIRECTS, decideRedirect, isRedirectStatus } from './redirect-policy.js';

/** Most bytes of a server's reply that are read (raw and after gzip): answers are ~100 bytes. */
export const MAX_REPLY_BYTES = 64 * 1024;

export interface PostBundleOptions {
  url: URL;
  body: Buffer;
  contentType: string;
  token: string | null;
  /** Aborts the whole exchange (Ctrl-C, overall deadline). */
  signal: AbortSignal;
  maxReplyBytes?: number;
  maxRedirects?: number;
}

export interface PostReply {
  status: number;
  headers: IncomingHttpHeaders;
  /** The reply body as text (decoded), at most maxReplyBytes; '' when unreadable. */
  text: string;
  /** Why `text` is incomplete or missing (too long, undecodable), or null. */
  bodyProblem: string | null;
  /** The URL that gave this answer (after redirects). */
  url: URL;
  redirects: number;
  /** Whether a redirect to another origin meant the token was not sent there. */
  tokenWithheld: boolean;
}

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  truncated: boolean;
}

/** Reads at most `max` bytes of a response, then stops reading (the rest is never fetched). */
function readCapped(
  res: IncomingMessage,
  max: number,
): Promise<{ raw: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    res.on('data', (c: Buffer) => {
      if (done) return;
      if (size + c.length > max) {
        chunks.push(c.subarray(0, max - size));
        size = max;
        done = true;
        res.destroy();
        resolve({ raw: Buffer.concat(chunks, size), truncated: true });
        return;
      }
      size += c.length;
      chunks.push(c);
    });
    res.on('end', () => {
      if (done) return;
      done = true;
      resolve({ raw: Buffer.concat(chunks, size), truncated: false });
    });
    res.on('error', (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
  });
}

function postOnce(
  url: URL,
  body: Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
  maxReply: number,
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
      signal,
      agent: false,
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (isRedirectStatus(status)) {
        // The body of a redirect is never needed: do not read a possibly endless one.
        res.destroy();
        resolve({ status, headers: res.headers, raw: Buffer.alloc(0), truncated: false });
        return;
      }
      readCapped(res, maxReply).then(
        ({ raw, truncated }) => resolve({ status, headers: res.headers, raw, truncated }),
        reject,
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function decodeReply(
  reply: RawReply,
  max: number,
): Promise<{ text: string; bodyProblem: string | null }> {
  if (reply.truncated) {
    return {
      text: '',
      bodyProblem: `the reply is longer than ${max} bytes; stopped reading it`,
    };
  }
  const encoding = String(reply.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === 'identity' || encoding === '') {
    return { text: reply.raw.toString('utf8'), bodyProblem: null };
  }
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    const out = await inflateBounded(reply.raw, max);
    if (out.ok) return { text: out.bytes.toString('utf8'), bodyProblem: null };
    return {
      text: '',
      bodyProblem:
        out.reason === 'too-large'
          ? `the gzip-encoded reply decompresses to more than ${max} bytes; stopped reading it`
          : `the gzip-encoded reply could not be read: ${out.detail}`,
    };
  }
  return {
    text: '',
    bodyProblem: `the reply is in content-encoding "${quoteUntrusted(encoding, 40)}", which submit does not read`,
  };
}

function networkError(url: URL, err: unknown, signal: AbortSignal): XrunhuntError {
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
    return timedOut
      ? new XrunhuntError('resource', `no complete answer from ${url.origin} in time`, {
          hint: 'the server may be overloaded or hung; try again later',
        })
      : new XrunhuntError('interrupted', `stopped before ${url.origin} answered`);
  }
  const code = (err as { code?: unknown }).code;
  return new XrunhuntError(
    'resource',
    `cannot reach ${url.origin}: ${typeof code === 'string' ? code : quoteUntrusted((err as Error).message)}`,
    { hint: 'check the URL and that "xrunhunt serve" is running there' },
  );
}

/** POSTs one bundle with bounded redirects and a bounded reply; network failures throw user errors. */
export async function postBundle(options: PostBundleOptions): Promise<PostReply> {
  const maxReply = options.maxReplyBytes ?? MAX_REPLY_BYTES;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  let url = options.url;
  let sendToken = options.token !== null;
  let tokenWithheld = false;
  for (let hops = 0; ; hops++) {
    const headers: Record<string, string> = { 'content-type': options.contentType };
    if (sendToken && options.token !== null) headers['authorization'] = `Bearer ${options.token}`;
    let raw: RawReply;
    try {
      raw = await postOnce(url, options.body, headers, options.signal, maxReply);
    } catch (err) {
      throw networkError(url, err, options.signal);
    }
    if (isRedirectStatus(raw.status)) {
      const location = raw.headers['location'];
      const decision = decideRedirect(options.url, url, raw.status, location, hops, maxRedirects);
      if (decision.kind === 'refuse') {
        throw new XrunhuntError('resource', `not sent: ${decision.reason}`, {
          hint: "check the URL with the collector's operator",
        });
      }
      url = decision.to;
      if (!decision.sendToken && options.token !== null) tokenWithheld = true;
      sendToken = sendToken && decision.sendToken;
      continue;
    }
    const { text, bodyProblem } = await decodeReply(raw, maxReply);
    return {
      status: raw.status,
      headers: raw.headers,
      text,
      bodyProblem,
      url,
      redirects: hops,
      tokenWithheld,
    };
  }
}
