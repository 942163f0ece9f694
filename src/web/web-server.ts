// The web view's HTTP shell: routes GET requests to a FleetReader and the pure page
// renderers, serves the packaged assets, and puts the same security headers on every
// answer (a CSP with no inline script and no other origin, nosniff, no framing, no
// referrer). Read-only: every other method is 405.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XrunhuntError } from '../errors.js';
import { ASSETS } from './assets.js';
import type { FleetReader } from './fleet-reader.js';
import { renderFlamePage } from './flame-page.js';
import { renderFleetPage } from './fleet-page.js';
import { renderSignaturePage } from './signature-page.js';
import { renderTrendPage } from './trend-page.js';
import { el, text } from '../report-html/markup.js';
import { renderWebPage } from './web-page.js';
import { parseRequestTarget } from './request-target.js';
import { SECURITY_HEADERS } from '../net/security-headers.js';
import { parseCount, parseFilter, parseSignature } from './web-query.js';

export { CONTENT_SECURITY_POLICY } from '../net/security-headers.js';

export interface WebServerOptions {
  reader: FleetReader;
  host: string;
  port: number;
  /** Called with unexpected errors (the page says "internal error", the log says why). */
  onError?: (err: unknown, url: string) => void;
  /** Called after each answered request (method, path, status, ms). */
  onRequest?: (r: { method: string; path: string; status: number; ms: number }) => void;
}

type Answer = { status: number; type: string; body: string; headers?: Record<string, string> };

const html = (body: string, status = 200): Answer => ({
  status,
  type: 'text/html; charset=utf-8',
  body,
});
const json = (value: unknown, status = 200): Answer => ({
  status,
  type: 'application/json; charset=utf-8',
  body: `${JSON.stringify(value)}\n`,
});

function errorPage(status: number, message: string, hint?: string): string {
  return renderWebPage('Error', 'error', {}, [
    el('h1', {}, text(status === 404 ? 'Not found' : status === 400 ? 'Bad request' : 'Error')),
    el('div', { class: 'error' }, el('p', {}, text(message)), hint ? el('p', {}, text(hint)) : ''),
    el('p', {}, el('a', { href: '/' }, text('fleet ranking'))),
  ]);
}

/** Answers one GET; throws XrunhuntError for bad input (400). */
async function route(reader: FleetReader, path: string, q: URLSearchParams): Promise<Answer> {
  const asset = ASSETS.get(path);
  if (asset) {
    return {
      status: 200,
      type: asset.type,
      body: asset.body,
      headers: { ETag: asset.etag, 'Cache-Control': 'no-cache' },
    };
  }
  const api = path.startsWith('/api/');
  const name = api ? path.slice(4) : path;
  const filter = parseFilter(q);
  const sig = (): string => parseSignature(q);
  switch (name) {
    case '/': {
      if (api) break;
      const limit = parseCount(q, 'limit', 50, 1, 1000);
      const [r, v] = await Promise.all([reader.ranking({ filter, limit }), reader.filterValues()]);
      return html(renderFleetPage(r, filter, v));
    }
    case '/ranking':
      if (!api) break;
      return json(await reader.ranking({ filter, limit: parseCount(q, 'limit', 50, 1, 1000) }));
    case '/filters':
      if (!api) break;
      return json(await reader.filterValues());
    case '/signature': {
      const signature = sig();
      const stackLimit = parseCount(q, 'stacks', 20, 1, 500);
      if (api) {
        const d = await reader.signature({ signature, filter, stackLimit });
        return d
          ? json(d)
          : json({ error: 'no incidents of this signature under this filter' }, 404);
      }
      const [d, f, v] = await Promise.all([
        reader.signature({ signature, filter, stackLimit }),
        reader.flame({ filter, signature, limit: 500 }),
        reader.filterValues(),
      ]);
      return html(renderSignaturePage(signature, d, f, filter, v), d ? 200 : 404);
    }
    case '/trend': {
      const top = parseCount(q, 'top', 7, 0, 7);
      const t = await reader.trend({ filter, top });
      if (api) return json(t);
      return html(renderTrendPage(t, filter, await reader.filterValues()));
    }
    case '/flame': {
      const limit = parseCount(q, 'limit', 2000, 1, 20000);
      const f = await reader.flame({ filter, signature: q.get('sig') ? sig() : null, limit });
      if (api) return json(f);
      return html(renderFlamePage(f, filter, await reader.filterValues()));
    }
  }
  return api
    ? json({ error: `no API endpoint ${path}` }, 404)
    : html(errorPage(404, `There is no page ${path}.`), 404);
}

/**
 * The web view as a request handler, for its own server (startWebServer) or mounted on
 * another one (serve --web hands it the receiver's GET requests).
 */
export function createWebHandler(
  options: Omit<WebServerOptions, 'host' | 'port'>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const t0 = performance.now();
    const target = parseRequestTarget(req.url ?? '/');
    // A refused target is logged as sent (cut short); JSON and the log quote it.
    const logged = target?.path ?? (req.url ?? '').slice(0, 200);
    let a: Answer;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      a = {
        ...html(errorPage(405, 'This view is read-only: only GET and HEAD.'), 405),
        headers: { Allow: 'GET, HEAD' },
      };
    } else if (!target) {
      a = html(
        errorPage(
          400,
          'This address is not a page of this view: a plain path is expected (no "." or ".." segments, backslashes, percent escapes or empty segments).',
        ),
        400,
      );
    } else {
      try {
        a = await route(options.reader, target.path, target.query);
      } catch (err) {
        const api = target.path.startsWith('/api/');
        if (err instanceof XrunhuntError) {
          a = api
            ? json({ error: err.message, hint: err.hint }, 400)
            : html(errorPage(400, err.message, err.hint), 400);
        } else {
          options.onError?.(err, target.path);
          a = api
            ? json({ error: 'internal error' }, 500)
            : html(errorPage(500, 'Internal error: the server log says why.'), 500);
        }
      }
    }
    res.writeHead(a.status, {
      ...SECURITY_HEADERS,
      'Content-Type': a.type,
      'Cache-Control': 'no-store',
      'Content-Length': Buffer.byteLength(a.body),
      ...a.headers,
    });
    res.end(req.method === 'HEAD' ? undefined : a.body);
    options.onRequest?.({
      method: req.method ?? '?',
      path: logged,
      status: a.status,
      ms: performance.now() - t0,
    });
  };
  return (req, res) => {
    handle(req, res).catch((err: unknown) => {
      options.onError?.(err, req.url ?? '');
      res.destroy();
    });
  };
}

/** Starts the web view; resolves with its URL once listening. */
export async function startWebServer(
  options: WebServerOptions,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer(createWebHandler(options));
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => done());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    server,
    url: `http://${host}:${addr.port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
