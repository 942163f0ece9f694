// Watches inbox folders with chokidar and hands finished bundle files to a callback in
// batches. "Finished" means: a final name (temp files start with "." and are ignored, as
// writeFileAtomic and `serve` produce) AND a size that stopped changing (awaitWriteFinish),
// so a slow `cp` or scp into the inbox is never read half-written.
import { watch, type FSWatcher } from 'chokidar';
import { statSync } from 'node:fs';
import { basename, relative, sep } from 'node:path';
import {
  QUARANTINE_DIR,
  emptyIngestReport,
  ingestFiles,
  isBundleFileName,
  listBundleFiles,
  mergeIngestReports,
  type IngestOptions,
  type IngestReport,
  type IngestTarget,
} from './ingest.js';

/** How long a file's size must stay unchanged before it is read (ms): a slow copy pauses < 1 s. */
export const STABLE_MS = 1000;
/** How often sizes are polled while waiting for them to settle (ms). */
export const STABLE_POLL_MS = 100;
/** Files arriving within this window are ingested together in one transaction (ms). */
export const BATCH_WINDOW_MS = 250;

export interface InboxWatchOptions {
  signal: AbortSignal;
  /**
   * Called with new/changed bundle files, grouped by the inbox root they belong to. Calls run
   * one after another: a batch is not handed over while the previous one is still ingesting.
   */
  onFiles: (inbox: string, files: string[]) => void | Promise<void>;
  onError?: (err: unknown) => void;
  stableMs?: number;
  /**
   * When the caller listed the inbox for its first ingest (epoch ms). Files written after
   * that but before the watcher was ready produce no event; once ready, files modified since
   * then (minus the stability window) are queued as soon as their size has settled.
   * Ingest is idempotent, so a file seen twice still counts once.
   */
  catchUpSinceMs?: number;
}

/** Whether an inbox file was (possibly) still being written at `sinceMs`: caught up later. */
export function isYoungInboxFile(mtimeMs: number, sinceMs: number, stableMs = STABLE_MS): boolean {
  return mtimeMs >= sinceMs - stableMs - STABLE_POLL_MS;
}

/** True for paths the watcher must not look at: dot files, temp files, the quarantine. */
export function isIgnoredInboxPath(
  root: string,
  path: string,
  isFile: boolean | undefined,
): boolean {
  const rel = relative(root, path);
  if (rel === '') return false;
  const parts = rel.split(sep);
  if (parts[0] === QUARANTINE_DIR) return true;
  if (parts.some((p) => p.startsWith('.'))) return true;
  return isFile === true && !isBundleFileName(basename(path));
}

/**
 * Starts watching; resolves when the watcher is ready. Existing files are not reported
 * (ingest them first) except those young enough to have been missed: see catchUpSinceMs.
 * Stops and releases everything when `signal` aborts.
 */
export async function watchInboxes(
  roots: string[],
  options: InboxWatchOptions,
): Promise<FSWatcher> {
  const stable = options.stableMs ?? STABLE_MS;
  const watchers: FSWatcher[] = [];
  const pending = new Map<string, Set<string>>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const flush = (): void => {
    timer = undefined;
    for (const [root, files] of pending) {
      pending.delete(root);
      const sorted = [...files].sort();
      running = running
        .then(() => options.onFiles(root, sorted))
        .catch((err: unknown) => options.onError?.(err));
    }
  };
  const queue = (root: string, path: string): void => {
    if (options.signal.aborted) return;
    let set = pending.get(root);
    if (!set) pending.set(root, (set = new Set()));
    set.add(path);
    timer ??= setTimeout(flush, BATCH_WINDOW_MS);
  };
  for (const root of roots) {
    const w = watch(root, {
      ignoreInitial: true,
      ignored: (path, stats) => isIgnoredInboxPath(root, path, stats?.isFile()),
      awaitWriteFinish: { stabilityThreshold: stable, pollInterval: STABLE_POLL_MS },
    });
    w.on('add', (p) => queue(root, p));
    w.on('change', (p) => queue(root, p));
    w.on('error', (err) => options.onError?.(err));
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    watchers.push(w);
  }
  const settling = new Set<NodeJS.Timeout>();
  // Queues `path` once its size and mtime are unchanged over `stable` ms (a copy in progress
  // keeps changing; chokidar also reports its later writes as `change`).
  const settleThenQueue = (root: string, path: string, tries = 0): void => {
    let before: { size: number; mtimeMs: number };
    try {
      before = statSync(path);
    } catch {
      return; // gone (renamed into place elsewhere, or removed): nothing to read
    }
    const t = setTimeout(() => {
      settling.delete(t);
      if (options.signal.aborted) return;
      let after: { size: number; mtimeMs: number };
      try {
        after = statSync(path);
      } catch {
        return;
      }
      if (after.size === before.size && after.mtimeMs === before.mtimeMs) queue(root, path);
      else if (tries < 60) settleThenQueue(root, path, tries + 1);
    }, stable);
    settling.add(t);
  };
  if (options.catchUpSinceMs !== undefined) {
    for (const root of roots) {
      let files: string[] = [];
      try {
        files = listBundleFiles([root]);
      } catch (err) {
        options.onError?.(err);
      }
      for (const f of files) {
        try {
          if (isYoungInboxFile(statSync(f).mtimeMs, options.catchUpSinceMs, stable)) {
            settleThenQueue(root, f);
          }
        } catch {
          // removed since the listing: nothing to do
        }
      }
    }
  }
  const stop = (): void => {
    if (timer) clearTimeout(timer);
    for (const t of settling) clearTimeout(t);
    for (const w of watchers) void w.close();
  };
  if (options.signal.aborted) stop();
  else options.signal.addEventListener('abort', stop, { once: true });
  return watchers[0]!;
}

/**
 * The first ingest of watched inboxes: every settled bundle in each inbox, bad ones moved to
 * that inbox's quarantine. Files still young when the inbox was listed (`listedAtMs`) may be
 * half-written: they are left to the watcher's catch-up (read once their size settles),
 * never quarantined half-written.
 */
export async function ingestInboxesOnce(
  store: IngestTarget,
  roots: readonly string[],
  listedAtMs: number,
  options: Omit<IngestOptions, 'inbox'> = {},
): Promise<IngestReport> {
  const settled = (f: string): boolean => {
    try {
      return !isYoungInboxFile(statSync(f).mtimeMs, listedAtMs);
    } catch {
      return false;
    }
  };
  let report = emptyIngestReport();
  for (const root of roots) {
    const files = listBundleFiles([root]).filter(settled);
    report = mergeIngestReports(
      report,
      await ingestFiles(store, files, { ...options, inbox: root }),
    );
  }
  return report;
}
