// `xrunhunt web`: the read-only browser view of a fleet store (src/web/).
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { writeNdjson } from '../output.js';
import { UsageError } from '../../errors.js';
import { quoteUntrusted } from '../../text/untrusted-text.js';
import { parseDuration } from '../../units.js';
import { defaultFleetDb } from '../../bundle/fleet-paths.js';
import { isLoopbackHost, parseListen } from '../../bundle/receiver.js';
import { resolveStoreSpec } from '../../store/store-spec.js';
import { openFleetReader } from '../../web/open-fleet-reader.js';
import { startWebServer } from '../../web/web-server.js';

export default defineCommand({
  name: 'web',
  summary: 'browse a fleet store in a web browser (read-only)',
  usage: 'web [--store URL|FILE | --db FILE] [--listen HOST:PORT]',
  description: `
Serves the fleet ranking (filters: kernel release, preemption model, driver, card, capture
backend, offender class, time range), a page per signature (stacks, machines affected,
incidents per machine-hour, the kernel releases it appears and disappears in), a trend
across kernel releases and a flame graph of the aggregated stacks. Every page's state is
its URL; /api/ranking, /api/signature, /api/trend, /api/flame and /api/filters answer the
same queries as JSON. The store is the SQLite file --db names, or --store /
$XRUNHUNT_STORE (a postgres:// URL of the shared store, or an SQLite file) as for
aggregate and serve. The store is only read (an older store schema is upgraded once on
start). No page loads anything from elsewhere. See docs/web.md.`,
  examples: [
    'xrunhunt web',
    'xrunhunt web --db /srv/xrunhunt/fleet.db --listen 0.0.0.0:8735',
    'xrunhunt web --store postgres://xrunhunt@db.example/fleet',
    'curl "http://127.0.0.1:8735/api/ranking?kernel=6.1.0-28-amd64&limit=5"',
  ],
  options: {
    db: {
      type: 'string',
      valueName: 'FILE',
      description: 'fleet store (SQLite) to read (default: $XDG_DATA_HOME/xrunhunt/fleet.db)',
    },
    store: {
      type: 'string',
      valueName: 'URL|FILE',
      description:
        'fleet store to read: postgres://USER@HOST[:PORT]/DB for the shared PostgreSQL store, or an SQLite file (default: $XRUNHUNT_STORE, else --db)',
    },
    listen: {
      type: 'string',
      valueName: 'HOST:PORT',
      default: '127.0.0.1:8735',
      description: 'address to listen on (port 0 picks a free one)',
    },
    duration: {
      type: 'string',
      short: 'd',
      valueName: 'DURATION',
      description: 'stop after DURATION (30s, 2h); default: until Ctrl-C',
    },
    json: {
      type: 'boolean',
      description: 'log as NDJSON on stdout (listening address, one record per request)',
    },
  },
  async run(ctx) {
    const { io, values } = ctx;
    const listen = parseListen(values.listen);
    if (!listen) {
      throw new UsageError(
        `invalid --listen "${quoteUntrusted(values.listen)}": expected HOST:PORT, e.g. 127.0.0.1:8735 or [::1]:8735`,
      );
    }
    const durationMs =
      values.duration === undefined ? null : parseDuration(values.duration, '--duration');
    const spec = resolveStoreSpec({
      store: values.store,
      env: io.env,
      sqlitePath: () => (values.db ? values.db : defaultFleetDb(io.env)),
    });
    if (spec.kind === 'sqlite') spec.path = resolve(io.cwd, spec.path);
    const store = spec.kind === 'sqlite' ? spec.path : spec.label;
    const reader = await openFleetReader(spec);
    if (!isLoopbackHost(listen.host)) {
      io.stderr.write(
        `xrunhunt: warning: listening on ${listen.host}: anyone who can reach this port can read the fleet store (it holds no names, only anonymous machine ids)\n`,
      );
    }
    const web = await startWebServer({
      reader,
      host: listen.host,
      port: listen.port,
      onError: (err, path) =>
        io.stderr.write(
          `xrunhunt: web: ${quoteUntrusted(path)}: ${quoteUntrusted(String((err as Error).stack ?? err), 2000)}\n`,
        ),
      onRequest: values.json ? (r) => writeNdjson(io.stdout, { type: 'request', ...r }) : undefined,
    });
    if (values.json)
      writeNdjson(io.stdout, {
        type: 'listening',
        url: web.url,
        store,
        ...(spec.kind === 'sqlite' ? { db: spec.path } : {}),
      });
    else
      io.stderr.write(
        `fleet view on ${web.url} (store ${quoteUntrusted(store)}; Ctrl-C to stop)\n`,
      );
    try {
      await new Promise<void>((done) => {
        const timer = durationMs === null ? undefined : setTimeout(done, durationMs);
        const stop = (): void => {
          if (timer) clearTimeout(timer);
          done();
        };
        if (ctx.signal.aborted) stop();
        else ctx.signal.addEventListener('abort', stop, { once: true });
      });
    } finally {
      await web.close();
      await reader.close();
    }
    if (values.json) writeNdjson(io.stdout, { type: 'stopped' });
    return 0;
  },
});
