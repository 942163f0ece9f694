// `xrunhunt aggregate`: bundles from many machines → one fleet ranking per offender
// signature, kept incrementally in an SQLite store; `--watch` keeps it current as bundles
// land in inbox folders.
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';
import { preferLiveTerminal } from '../../tui/live-terminal.js';
import { terminalSafe, writeJson, writeNdjson } from '../output.js';
import { UsageError } from '../../errors.js';
import { parseDuration, parseInteger } from '../../units.js';
import {
  displayName,
  emptyIngestReport,
  ingestFiles,
  listBundleFiles,
  resignPlan,
  type IngestReport,
} from '../../bundle/ingest.js';
import {
  defaultFleetDb,
  prepareFleetDbFolder,
  prepareInboxFolder,
} from '../../bundle/fleet-paths.js';
import { escapeControlChars } from '../../text/untrusted-text.js';
import { renderRankingMarkdown, renderRankingText } from '../../bundle/ranking-render.js';
import { GROUP_BYS, type FleetRanking, type GroupBy } from '../../bundle/store.js';
import { RANKING_CLASSES } from '../../store/class-ranking-build.js';
import {
  renderClassRankingMarkdown,
  renderClassRankingText,
} from '../../bundle/class-ranking-render.js';
import { resolveStoreSpec } from '../../store/store-spec.js';
import { rankingFoldedLines } from '../../bundle/folded-ranking.js';
import { LOG_OPTIONS, logFilePath, openDaemonLog, type DaemonLog } from '../../log/daemon-log.js';
import { createProgressReporter } from '../progress.js';
import { ingestFilesWithProgress } from '../progress-ingest.js';
import type { Signer } from '../../bundle/signer.js';
import type { FleetDashboard } from '../../tui/fleet-dashboard.js';

export { defaultFleetDb } from '../../bundle/fleet-paths.js';

/** The counts of an ingest report for a log record (skipped files are logged one by one). */
function ingestCounts(r: IngestReport): Record<string, number> {
  return {
    files: r.files,
    added: r.added,
    duplicates: r.duplicates,
    unchanged: r.unchanged,
    skipped: r.skipped.length,
  };
}

/** Parses --since: an ISO date/time, or a duration back from now (90m, 12h, 7d, 2w). */
export function parseSince(text: string, nowMs: number): number {
  const days = /^\s*(\d+(?:\.\d+)?)\s*(d|w)\s*$/i.exec(text);
  if (days) return nowMs - Number(days[1]) * (days[2]!.toLowerCase() === 'w' ? 7 : 1) * 86_400_000;
  if (/^\s*\d+(?:\.\d+)?\s*(ms|s|m|h)\s*$/i.test(text))
    return nowMs - parseDuration(text, '--since');
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new UsageError(
    `invalid --since "${text}": expected a date (2026-11-01, 2026-11-01T12:00Z) or a duration back from now (12h, 7d, 2w)`,
  );
}

function summarizeIngest(r: IngestReport): string {
  const parts = [`${r.added} new`];
  if (r.duplicates) parts.push(`${r.duplicates} duplicate${r.duplicates === 1 ? '' : 's'}`);
  if (r.unchanged) parts.push(`${r.unchanged} already stored`);
  if (r.skipped.length) parts.push(`${r.skipped.length} skipped`);
  return `ingested ${r.files} file${r.files === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

export default defineCommand({
  name: 'aggregate',
  summary: 'merge bundles from many machines into one ranking of offending kernel code',
  usage: 'aggregate [DIR|FILE...] [options]',
  description: `
Reads session bundles (.json or .json.gz, folders searched recursively) into a fleet store
(an SQLite file, or a shared PostgreSQL server with --store postgres://…; only new files are
read on the next run; the same bundle counts once however often it is sent) and ranks kernel offenders by signature across machines: incidents, distinct
machines, incidents per machine-hour of playback, share of kernel-code xruns, kernel releases
(first and last seen), drivers, preemption models and load kinds, with an example stack.
Bad bundles are skipped with the reason; in --watch inboxes they are moved to quarantine/.
Without files, shows the ranking of what the store already holds.`,
  examples: [
    'xrunhunt aggregate ~/bug-1234/bundles/',
    'xrunhunt aggregate --by kernel --since 30d --format markdown > ranking.md',
    'xrunhunt aggregate --watch /srv/xrunhunt/inbox --json',
    'xrunhunt aggregate --resign',
    'xrunhunt aggregate --by class',
    'xrunhunt aggregate --class blocked-by-task --since 30d',
  ],
  positionals: true,
  options: {
    db: {
      type: 'string',
      valueName: 'FILE',
      description: 'fleet store (SQLite) (default: $XDG_DATA_HOME/xrunhunt/fleet.db)',
    },
    store: {
      type: 'string',
      valueName: 'URL|FILE',
      description:
        'fleet store: postgres://USER@HOST[:PORT]/DB for a shared PostgreSQL server, or an SQLite file (default: $XRUNHUNT_STORE, else --db)',
    },
    watch: {
      type: 'boolean',
      description:
        'keep watching the given folders (inboxes) and refresh the ranking as bundles arrive; stop with Ctrl-C',
    },
    by: {
      type: 'string',
      valueName: 'FACET',
      choices: [...GROUP_BYS, 'class'],
      description:
        'rank separately per kernel release, driver, preemption model or load kind; class: per class (flight recorder breakdown class, else offender class) with its culprits',
    },
    class: {
      type: 'string',
      valueName: 'CLASS',
      choices: RANKING_CLASSES,
      description:
        'rank the culprits of one class only: a breakdown class (blocked-by-task, irq-latency, interference, woken-late, application-late) or an offender class (kernel, idle, user, none, detector-only)',
    },
    since: {
      type: 'string',
      valueName: 'DATE|DURATION',
      description:
        'only bundles created since a date (2026-11-01) or within a DURATION back from now (12h, 7d, 2w)',
    },
    top: {
      type: 'string',
      valueName: 'N',
      default: '20',
      description: 'show the N highest-ranked signatures per group',
    },
    resign: {
      type: 'boolean',
      description: "recompute every stored signature from its frames with this version's rules",
    },
    json: {
      type: 'boolean',
      description: 'print one JSON document (NDJSON, one record per refresh, with --watch)',
    },
    format: {
      type: 'string',
      valueName: 'FORMAT',
      default: 'text',
      choices: ['text', 'markdown', 'folded'],
      description:
        "report format (or --json); folded: collapsed stacks for flamegraph.pl / speedscope (each signature's example stack × its incidents)",
    },
    html: {
      type: 'string',
      valueName: 'FILE',
      description:
        'also write the ranking as a self-contained HTML report to FILE (rewritten on each refresh with --watch)',
    },
    tui: {
      type: 'boolean',
      description:
        'with --watch on a terminal: a live ranking dashboard instead of reprinting (q quits)',
    },
    ...LOG_OPTIONS,
  },
  async run(ctx) {
    const { io, values } = ctx;
    const byClass = values.by === 'class' || values.class !== undefined;
    const by = values.by === 'class' ? undefined : (values.by as GroupBy | undefined);
    if (byClass && values.by !== undefined && values.by !== 'class') {
      throw new UsageError(
        `--class ranks per class and cannot be combined with --by ${values.by}`,
        {
          hint: 'use --by class (all classes) or --class CLASS (one), without another --by',
        },
      );
    }
    if (
      byClass &&
      (values.watch || values.tui || values.html !== undefined || values.format === 'folded')
    ) {
      throw new UsageError(
        'the per-class ranking (--by class, --class) is printed once as text, markdown or --json; it has no --watch, --tui, --html or --format folded',
        {
          hint: 'run it against the same store while a watcher ingests, e.g. xrunhunt aggregate --by class --store …',
        },
      );
    }
    const top = parseInteger(values.top, '--top', 1, 100_000);
    const sinceMs = values.since === undefined ? null : parseSince(values.since, Date.now());
    if (values.watch && values.format === 'folded' && !values.json) {
      throw new UsageError(
        '--format folded prints one set of stacks and cannot refresh: leave out --watch',
        {
          hint: 'run xrunhunt aggregate --format folded against the same --db while the watcher runs',
        },
      );
    }
    if (values.watch && ctx.positionals.length === 0) {
      throw new UsageError('--watch needs at least one inbox folder to watch', {
        hint: 'e.g. xrunhunt aggregate --watch /srv/xrunhunt/inbox',
      });
    }
    // resolve() would make an empty argument the current folder and ingest all of it.
    if (ctx.positionals.includes('')) {
      throw new UsageError('an empty string was given as a bundle file or folder', {
        hint: 'name the files or folders to read, e.g. xrunhunt aggregate ~/bundles/',
      });
    }
    if (values.store !== undefined && values.db !== undefined) {
      throw new UsageError('give either --store or --db, not both', {
        hint: '--store takes a postgres:// URL or an SQLite file; --db an SQLite file',
      });
    }
    const spec = resolveStoreSpec({
      store: values.store,
      env: io.env,
      sqlitePath: () => values.db ?? defaultFleetDb(io.env),
    });
    if (spec.kind === 'sqlite') spec.path = resolve(io.cwd, spec.path);
    const dbPath = spec.kind === 'sqlite' ? spec.path : spec.label;
    const paths = ctx.positionals.map((p) => resolve(io.cwd, p));
    // A bad --html path is refused before the store is touched (and never renamed over).
    if (values.html !== undefined) {
      const { checkReportTarget } = await import('../../report-html/index.js');
      checkReportTarget(resolve(io.cwd, values.html));
    }
    // An inbox to watch may not exist yet (serve creates it on the first upload).
    if (values.watch) for (const p of paths) prepareInboxFolder(p);
    const listedAtMs = Date.now();
    // Named paths are checked before the store is touched: a missing one is an error.
    const files = listBundleFiles(paths);
    if (spec.kind === 'sqlite')
      prepareFleetDbFolder(spec.path, values.db !== undefined || values.store !== undefined);

    let dash: FleetDashboard | null = null;
    // The daemon form (--watch) always logs; a one-off run only when given a --log-file.
    const log: DaemonLog | null =
      values.watch || values['log-file'] !== undefined
        ? openDaemonLog({
            command: 'aggregate',
            level: values['log-level'],
            file: logFilePath(values['log-file'], io.cwd),
            stderr: io.stderr,
          })
        : null;
    // With the log on stderr, its records replace the human lines (one stream, one shape).
    const say = (text: string): void => {
      if (log?.target !== 'stderr') io.stderr.write(text);
    };
    const { openFleetBackend } = await import('../../store/open-store.js');
    const store = await openFleetBackend(spec);
    try {
      const plan = resignPlan({
        requested: values.resign,
        storeRulesVersion: await store.rulesVersion(),
        willIngest: files.length > 0 || values.watch,
      });
      let signer: Signer | undefined;
      if (plan.store || plan.incoming) {
        const { loadAnalyzerSigner } = await import('../../bundle/signer.js');
        signer = await loadAnalyzerSigner();
      }
      const warnSkip = (s: { file: string; reason: string; quarantinedTo?: string }): void => {
        const reason = escapeControlChars(s.reason);
        log?.logger.warn(
          { event: 'skipped', ...(s.quarantinedTo ? { quarantinedTo: s.quarantinedTo } : {}) },
          reason,
        );
        say(
          `xrunhunt: skipped ${reason}${s.quarantinedTo ? ` (moved to ${displayName(s.quarantinedTo)})` : ''}\n`,
        );
      };
      const resignInfo =
        signer && plan.store ? await store.resign(signer.sign, signer.rulesVersion) : null;
      if (resignInfo && !values.json) {
        io.stderr.write(
          `re-signed with rules ${signer!.rulesVersion}: ${resignInfo.events} event${resignInfo.events === 1 ? '' : 's'} changed signature\n`,
        );
      }
      const options = {
        signal: ctx.signal,
        onSkip: warnSkip,
        ...(signer && plan.incoming
          ? { resign: { sign: signer.sign, rulesVersion: signer.rulesVersion } }
          : {}),
      };
      // From an inbox (--watch), bad files are quarantined; plain runs leave files alone.
      let report: IngestReport = emptyIngestReport();
      if (values.watch) {
        const { ingestInboxesOnce } = await import('../../bundle/inbox-watch.js');
        report = await ingestInboxesOnce(store, paths, listedAtMs, options);
      } else if (files.length > 0) {
        const progress = createProgressReporter(
          { write: (t: string) => io.stderr.write(t), isTTY: io.stderrIsTTY },
          {
            total: files.length,
            ...(log
              ? {
                  record: (p, line) =>
                    log!.logger.info({ event: 'progress', done: p.done, total: p.total }, line),
                }
              : {}),
          },
        );
        report = await ingestFilesWithProgress(store, files, options, progress);
      }
      if (files.length > 0 && !values.json) say(`${summarizeIngest(report)}\n`);
      log?.logger.info({ event: 'ingest', ...ingestCounts(report) }, summarizeIngest(report));

      if (byClass) {
        const classes = await store.rankClasses({ sinceMs, top, only: values.class ?? null });
        if (values.json)
          writeJson(io.stdout, { db: dbPath, ingest: files.length > 0 ? report : null, classes });
        else if (values.format === 'markdown')
          io.stdout.write(terminalSafe(renderClassRankingMarkdown(classes)));
        else io.stdout.write(terminalSafe(renderClassRankingText(classes)));
        return 0;
      }
      const rank = (): Promise<FleetRanking> => store.rank({ by: by ?? null, sinceMs, top });
      const html = values.html === undefined ? null : resolve(io.cwd, values.html);
      const writeHtml = async (ranking: FleetRanking): Promise<void> => {
        const { writeAggregateHtml } = await import('../../report-html/index.js');
        await writeAggregateHtml(html!, ranking, [['store', dbPath]]);
      };
      const wantDash = values.tui && values.watch && io.stdoutIsTTY && !values.json;
      if (wantDash) preferLiveTerminal(io.stdoutIsTTY);
      dash = wantDash
        ? (await import('../../tui/fleet-dashboard.js')).startFleetDashboard(
            io,
            paths.map(displayName),
          )
        : null;
      const show = (ranking: FleetRanking, ingest: IngestReport | null): void => {
        if (html && values.watch) {
          writeHtml(ranking).catch((err: unknown) =>
            io.stderr.write(`xrunhunt: ${escapeControlChars((err as Error).message)}\n`),
          );
        }
        if (dash) dash.update(ranking, ingest ? summarizeIngest(ingest) : '', new Date());
        else if (values.json) {
          const doc = {
            db: dbPath,
            ingest,
            ...(resignInfo
              ? { resign: { ...resignInfo, rulesVersion: signer!.rulesVersion } }
              : {}),
            ranking,
          };
          if (values.watch) writeNdjson(io.stdout, { type: 'ranking', ...doc });
          else writeJson(io.stdout, doc);
        } else if (values.format === 'folded') {
          // Already safe: frame text is escaped for the folded format (analysis/folded.ts).
          for (const line of rankingFoldedLines(ranking)) io.stdout.write(line);
        } else if (values.format === 'markdown') {
          io.stdout.write(terminalSafe(renderRankingMarkdown(ranking)));
        } else {
          io.stdout.write(terminalSafe(renderRankingText(ranking)));
        }
      };
      show(await rank(), files.length > 0 || values.watch ? report : null);
      if (!values.watch) {
        if (html) await writeHtml(await rank());
        return 0;
      }

      const { watchInboxes } = await import('../../bundle/inbox-watch.js');
      if (!values.json && !dash)
        say(`watching ${paths.map(displayName).join(', ')} (Ctrl-C to stop)\n`);
      log?.logger.info({ event: 'watching', inboxes: paths }, 'watching');
      // q on the dashboard stops watching like Ctrl-C does.
      const stopped = new AbortController();
      dash?.quit.then(() => stopped.abort()).catch(() => undefined);
      await watchInboxes(paths, {
        signal: AbortSignal.any([ctx.signal, stopped.signal]),
        catchUpSinceMs: listedAtMs,
        onError: (err) => {
          const message = escapeControlChars((err as Error).message ?? String(err));
          log?.logger.error({ event: 'watch-error' }, message);
          say(`xrunhunt: watch: ${message}\n`);
        },
        onFiles: async (inbox, changed) => {
          const t0 = performance.now();
          const r = await ingestFiles(store, changed, { ...options, inbox });
          if (r.added === 0 && r.duplicates === 0 && r.skipped.length === 0) return;
          log?.logger.info(
            {
              event: 'ingest',
              inbox,
              ...ingestCounts(r),
              durationMs: Math.round(performance.now() - t0),
            },
            summarizeIngest(r),
          );
          if (values.json) writeNdjson(io.stdout, { type: 'ingest', inbox, ...r });
          else if (!dash) say(`${new Date().toISOString()} ${summarizeIngest(r)}\n`);
          if (r.added > 0) {
            if (!values.json && io.stdoutIsTTY && !dash) io.stdout.write('\x1b[2J\x1b[H');
            show(await rank(), r);
          }
        },
      });
      await new Promise<void>((done) => {
        if (ctx.signal.aborted || stopped.signal.aborted) done();
        else {
          ctx.signal.addEventListener('abort', () => done(), { once: true });
          stopped.signal.addEventListener('abort', () => done(), { once: true });
        }
      });
      log?.logger.info({ event: 'stopped' }, 'stopped');
      return 0;
    } finally {
      dash?.close();
      await store.close();
      await log?.close();
    }
  },
});
