// `xrunhunt serve`: a small HTTP receiver so users can send bundles with `xrunhunt submit`
// (or curl) into an inbox that `aggregate --watch` ingests.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { writeNdjson } from '../output.js';
import { UsageError, XrunhuntError, errnoCode } from '../../errors.js';
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { parseDuration, parseSize } from '../../units.js';
import { prepareInbox, removeLeftoverTempFiles } from '../../bundle/inbox-dir.js';
import { inspectInputPath, requireRegularFileWithin } from '../../io/input-path.js';
import { parseRateLimit } from '../../bundle/rate-limit.js';
import { parseTrustedProxies } from '../../net/client-key.js';
import { resolveStoreSpec, type StoreSpec } from '../../store/store-spec.js';
import type { FleetReader } from '../../web/fleet-reader.js';
import { openFleetReader } from '../../web/open-fleet-reader.js';
import { createWebHandler } from '../../web/web-server.js';
import { linkInboxToStore } from '../../store/receiver-store.js';
import { LOG_OPTIONS, logFilePath, openDaemonLog } from '../../log/daemon-log.js';
import { uploadLevel, uploadRecord } from '../../log/upload-record.js';
import {
  DEFAULT_RECEIVER_LIMITS,
  isLoopbackHost,
  parseListen,
  startReceiver,
  type UploadResult,
} from '../../bundle/receiver.js';

/** Largest token file read (bytes): a token is one short line. */
const MAX_TOKEN_FILE_BYTES = 4096;

/** Reads a token file: one line, at least 16 characters (a guessable token is no token). */
export function readTokenFile(path: string): string {
  // A FIFO or /dev/zero named as the token must not hang or exhaust the reader.
  requireRegularFileWithin(inspectInputPath(path), MAX_TOKEN_FILE_BYTES, 'a token file');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new XrunhuntError(
      errnoCode(err) === 'ENOENT' ? 'not-found' : 'input',
      `cannot read the token file ${quoteUntrusted(path)}: ${(err as Error).message}`,
      { hint: 'create one with: head -c 32 /dev/urandom | base64 > token && chmod 600 token' },
    );
  }
  const token = text.trim();
  if (token.length < 16 || /\s/.test(token)) {
    throw new XrunhuntError(
      'input',
      `the token in ${quoteUntrusted(path)} must be one line of at least 16 characters without spaces (found ${token.length} characters)`,
      { hint: 'create one with: head -c 32 /dev/urandom | base64 > token && chmod 600 token' },
    );
  }
  return token;
}

/** serve --web: the web view's reader over the store serve ingests into, and its handler. */
async function mountWebView(
  spec: StoreSpec,
  io: { stderr: NodeJS.WritableStream },
): Promise<{ reader: FleetReader; handler: ReturnType<typeof createWebHandler> }> {
  const reader = await openFleetReader(spec);
  const handler = createWebHandler({
    reader,
    onError: (err, path) =>
      io.stderr.write(
        `xrunhunt: web: ${quoteUntrusted(path)}: ${quoteUntrusted(String((err as Error).stack ?? err), 2000)}\n`,
      ),
  });
  return { reader, handler };
}

export default defineCommand({
  name: 'serve',
  summary: 'receive bundles over HTTP into an inbox folder (for aggregate --watch)',
  usage: 'serve --inbox DIR [options]',
  description: `
Accepts POST of one bundle (JSON or gzip) at / or /bundles, validates it, and writes it
atomically into the inbox as <sha256>.json[.gz]. Answers: 201 accepted, 200 duplicate,
400 invalid (with the reason), 401 missing/wrong token, 408 body too slow, 413 too large,
429 too many uploads from one client (Retry-After), 503 busy (Retry-After), 507 inbox full
(Retry-After). A body must arrive within 30 s at 4 KiB/s or more after 3 s; at most 8
uploads at once per client address; work starts only once a body is complete. Listens
on loopback unless told otherwise; put it behind a TLS reverse proxy to collect over the
internet, and always use --token then. GET /schema answers the bundle's JSON Schema.
Logs: JSON lines (time, level, one record per upload with id, bytes, result, duration,
client) on stderr, or appended to --log-file. See docs/aggregate.md.`,
  examples: [
    'xrunhunt serve --inbox /srv/xrunhunt/inbox',
    'xrunhunt serve --inbox ./inbox --listen 0.0.0.0:8734 --token /etc/xrunhunt/token',
    'curl --data-binary @bundle.json.gz http://127.0.0.1:8734/',
  ],
  options: {
    inbox: {
      type: 'string',
      valueName: 'DIR',
      description: 'folder accepted bundles are written to (created if missing)',
    },
    listen: {
      type: 'string',
      valueName: 'HOST:PORT',
      default: '127.0.0.1:8734',
      description: 'address to listen on (port 0 picks a free one)',
    },
    token: {
      type: 'string',
      valueName: 'FILE',
      description: 'require "Authorization: Bearer <token>" with the token in FILE',
    },
    'max-size': {
      type: 'string',
      valueName: 'SIZE',
      default: '8M',
      description: 'largest upload accepted (512K, 8M)',
    },
    'rate-limit': {
      type: 'string',
      valueName: 'N/PERIOD',
      default: '60/1m',
      description: 'uploads allowed per client address (10/s, 60/1m, 1000/1h)',
    },
    duration: {
      type: 'string',
      short: 'd',
      valueName: 'DURATION',
      description: 'stop after DURATION (30s, 2h); default: until Ctrl-C',
    },
    json: {
      type: 'boolean',
      description: 'results as NDJSON on stdout (listening address, one record per upload)',
    },
    store: {
      type: 'string',
      valueName: 'URL|FILE',
      description:
        'also ingest each accepted bundle into this fleet store (postgres://USER@HOST/DB shared by many receivers, or an SQLite file; default: $XRUNHUNT_STORE); duplicates are then judged by the store',
    },
    web: {
      type: 'boolean',
      description:
        'also serve the read-only web view of the --store (GET pages and /api, as `xrunhunt web`) on this port; uploads are POSTed as before',
    },
    'trust-proxy': {
      type: 'string',
      valueName: 'ADDR[,ADDR]',
      description:
        'reverse proxies (IP addresses) whose X-Forwarded-For names the client: rate limits then key on that client, not on the proxy',
    },
    ...LOG_OPTIONS,
  },
  async run(ctx) {
    const { io, values } = ctx;
    if (!values.inbox)
      throw new UsageError('serve needs --inbox DIR: the folder uploaded bundles are written to');
    const listen = parseListen(values.listen);
    if (!listen) {
      throw new UsageError(
        `invalid --listen "${quoteUntrusted(values.listen)}": expected HOST:PORT, e.g. 127.0.0.1:8734 or [::1]:8734`,
      );
    }
    const maxBytes = parseSize(values['max-size'], '--max-size');
    if (maxBytes < 1024)
      throw new UsageError(
        `--max-size ${quoteUntrusted(values['max-size'])} is too small: a bundle needs at least 1K`,
      );
    if (maxBytes > DEFAULT_RECEIVER_LIMITS.bodyBytesBudget) {
      throw new UsageError(
        `--max-size ${quoteUntrusted(values['max-size'])} is larger than the ${DEFAULT_RECEIVER_LIMITS.bodyBytesBudget / 1024 / 1024}M of upload bodies this server holds in memory at once`,
        { hint: 'real bundles are well under 1M gzipped; 8M (the default) leaves room' },
      );
    }
    const rateLimit = parseRateLimit(values['rate-limit']);
    if (!rateLimit) {
      throw new UsageError(
        `invalid --rate-limit "${quoteUntrusted(values['rate-limit'])}": expected N/PERIOD, e.g. 10/s, 60/1m, 1000/1h`,
      );
    }
    const durationMs =
      values.duration === undefined ? null : parseDuration(values.duration, '--duration');
    const token = values.token ? readTokenFile(resolve(io.cwd, values.token)) : null;
    let trustedProxies: Set<string> | undefined;
    if (values['trust-proxy'] !== undefined) {
      try {
        trustedProxies = parseTrustedProxies(values['trust-proxy']);
      } catch (err) {
        throw new UsageError(`invalid --trust-proxy: ${(err as Error).message}`);
      }
    }
    const spec =
      values.store !== undefined || io.env['XRUNHUNT_STORE']
        ? resolveStoreSpec({ store: values.store, env: io.env, sqlitePath: () => '' })
        : null;
    if (spec?.kind === 'sqlite') spec.path = resolve(io.cwd, spec.path);
    if (values.web && !spec) {
      throw new UsageError(
        'serve --web needs a fleet store to show: --store URL|FILE or $XRUNHUNT_STORE',
        {
          hint: 'e.g. xrunhunt serve --inbox ./inbox --store ./fleet.db --web',
        },
      );
    }
    const inbox = resolve(io.cwd, values.inbox);
    prepareInbox(inbox);
    const leftovers = removeLeftoverTempFiles(inbox);
    const log = openDaemonLog({
      command: 'serve',
      level: values['log-level'],
      file: logFilePath(values['log-file'], io.cwd),
      stderr: io.stderr,
    });
    // Human lines on stderr only when the log is elsewhere (a file): never two streams mixed.
    const human = (text: string): void => {
      if (log.target !== 'stderr' && !values.json) io.stderr.write(text);
    };
    if (!isLoopbackHost(listen.host) && token === null) {
      const warning = `listening on ${listen.host} without --token: anyone who can reach this port can fill the inbox`;
      log.logger.warn({ event: 'no-token', host: listen.host }, warning);
      human(`xrunhunt: warning: ${warning}\n`);
    }
    const storeLabel = spec ? (spec.kind === 'sqlite' ? spec.path : spec.label) : null;
    const storeError = (err: unknown): void => {
      const msg = `store ${storeLabel ?? ''}: ${(err as Error).message}; accepted uploads stay in the inbox and are ingested when it is back`;
      log.logger.error({ event: 'store-error', store: storeLabel }, msg);
      if (values.json) writeNdjson(io.stdout, { type: 'store-error', error: msg });
      human(`xrunhunt: ${msg}\n`);
    };
    const { openFleetBackend } = await import('../../store/open-store.js');
    // Short reconnect window: an upload is answered within seconds, its file drained later.
    const backend = spec
      ? await openFleetBackend(spec, { poolSize: 8, reconnectWindowMs: 2000 })
      : null;
    const link = backend ? linkInboxToStore(backend, inbox, storeError) : null;
    const drained = link ? await link.drain() : null;
    const drainTimer = link
      ? setInterval(() => {
          if (link.pending() > 0) void link.drain();
        }, 5000)
      : undefined;
    const web = values.web && spec ? await mountWebView(spec, io) : null;
    if (web && !isLoopbackHost(listen.host)) {
      io.stderr.write(
        `xrunhunt: warning: --web on ${listen.host}: anyone who can reach this port can read the fleet store (--token guards uploads only)\n`,
      );
    }
    const counts = { accepted: 0, duplicate: 0, rejected: 0, aborted: 0, failed: 0 };
    const onResult = (r: UploadResult): void => {
      counts[r.outcome]++;
      if (values.json) writeNdjson(io.stdout, { type: 'upload', ...r });
      log.logger[uploadLevel(r)](uploadRecord(r), 'upload');
    };
    try {
      const rx = await startReceiver({
        inbox,
        token,
        maxBytes,
        rateLimit,
        host: listen.host,
        port: listen.port,
        onResult,
        ...(trustedProxies ? { trustedProxies } : {}),
        ...(link ? { store: link } : {}),
        ...(web ? { otherGet: web.handler } : {}),
      });
      if (leftovers.length) {
        log.logger.info(
          { event: 'cleanup', removed: leftovers.length },
          'removed leftover temp files',
        );
        human(
          `removed ${leftovers.length} temp file(s) an interrupted earlier run left in ${quoteUntrusted(inbox)}\n`,
        );
      }
      if (drained && drained.added > 0) {
        log.logger.info({ event: 'drained', ...drained }, 'ingested inbox files the store lacked');
        human(`ingested ${drained.added} inbox file(s) the store did not have yet\n`);
      }
      log.logger.info({ event: 'listening', url: rx.url, inbox, store: storeLabel }, 'listening');
      human(
        `listening on ${rx.url} → ${quoteUntrusted(inbox)}${storeLabel ? ` → ${quoteUntrusted(storeLabel)}` : ''} (Ctrl-C to stop); log: ${quoteUntrusted(log.target)}\n`,
      );
      if (values.json) {
        if (leftovers.length) writeNdjson(io.stdout, { type: 'cleanup', removed: leftovers });
        if (drained && drained.added > 0) writeNdjson(io.stdout, { type: 'drained', ...drained });
        writeNdjson(io.stdout, {
          type: 'listening',
          url: rx.url,
          inbox,
          store: storeLabel,
          ...(web ? { web: rx.url } : {}),
        });
      }
      if (web) human(`fleet view on ${rx.url} (read-only)\n`);
      await new Promise<void>((done) => {
        const timer = durationMs === null ? undefined : setTimeout(done, durationMs);
        const stop = (): void => {
          if (timer) clearTimeout(timer);
          done();
        };
        if (ctx.signal.aborted) stop();
        else ctx.signal.addEventListener('abort', stop, { once: true });
      });
      await rx.close();
      if (drainTimer) clearInterval(drainTimer);
      await backend?.close();
      await web?.reader.close();
      log.logger.info({ event: 'stopped', ...counts }, 'stopped');
      if (values.json) writeNdjson(io.stdout, { type: 'stopped', ...counts });
      human(
        `stopped: ${counts.accepted} accepted, ${counts.duplicate} duplicate, ${counts.rejected} rejected, ${counts.aborted} aborted by the client, ${counts.failed} failed\n`,
      );
    } finally {
      await log.close();
    }
    return 0;
  },
});
