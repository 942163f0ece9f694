// The ingest shell: finds bundle files, skips ones already stored (same path, size, mtime),
// reads + validates + hashes the rest and stores them in batches (one transaction each).
// A bad bundle is skipped with its reason and, from an inbox, moved to quarantine/; it
// never stops the others.
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { basename, join } from 'node:path';
import { XrunhuntError, errnoCode } from '../errors.js';
import { bundleHash } from './content-hash.js';
import { parseBundleBytes } from './read.js';
import type { Bundle } from './schema.js';
import type { FleetStore, IngestItem, SignFrames } from './store.js';

/** Bundles per transaction: large enough that commit cost is amortised (~1 fsync per 500). */
export const INGEST_BATCH = 500;

/** Name of the folder bad bundles are moved to, inside the inbox. */
export const QUARANTINE_DIR = 'quarantine';

export interface SkippedFile {
  file: string;
  reason: string;
  /** Where it was moved, when ingesting from an inbox. */
  quarantinedTo?: string;
}

export interface IngestReport {
  /** Files looked at. */
  files: number;
  added: number;
  duplicates: number;
  /** Files already ingested before (same path, size, mtime): not read again. */
  unchanged: number;
  skipped: SkippedFile[];
}

export interface IngestOptions {
  /** Inbox root: bad bundles go to <inbox>/quarantine/ with a .reason.txt next to them. */
  inbox?: string;
  batchSize?: number;
  signal?: AbortSignal;
  now?: () => number;
  /** Re-sign events of bundles written with other rules (the analyzer's current rules). */
  resign?: { sign: SignFrames; rulesVersion: string };
  onSkip?: (s: SkippedFile) => void;
}

/** Quotes names with control characters or spaces so a hostile name cannot forge output. */
export function displayName(path: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f\s"\\]/.test(path) ? JSON.stringify(path) : path;
}

/** Whether a directory entry name looks like a finished bundle (temp files start with "."). */
export function isBundleFileName(name: string): boolean {
  return !name.startsWith('.') && /\.json(\.gz)?$/i.test(name);
}

/** Lists bundle files under the given files/folders (folders recursively, quarantine skipped). */
export function listBundleFiles(paths: string[], fs: typeof nodeFs = nodeFs): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    let entries: nodeFs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      throw new XrunhuntError(
        'input',
        `cannot read folder ${displayName(dir)}: ${(err as Error).message}`,
      );
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== QUARANTINE_DIR && !e.name.startsWith('.')) walk(p);
      } else if (e.isFile() && isBundleFileName(e.name)) out.push(p);
    }
  };
  for (const p of paths) {
    let st: nodeFs.Stats;
    try {
      st = fs.statSync(p);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') {
        throw new XrunhuntError('not-found', `${displayName(p)}: no such file or folder`, {
          hint: 'give bundle files (.json, .json.gz) or folders that contain them',
        });
      }
      throw err;
    }
    if (st.isDirectory()) walk(p);
    else out.push(p);
  }
  return out;
}

/** Moves a bad file into <inbox>/quarantine/ (never overwriting) and writes why next to it. */
export function quarantineFile(
  file: string,
  inbox: string,
  reason: string,
  fs: typeof nodeFs = nodeFs,
): string {
  const dir = join(inbox, QUARANTINE_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const base = basename(file).replace(/^\.+/, '_') || 'bundle';
  let target = join(dir, base);
  if (fs.existsSync(target)) target = join(dir, `${randomBytes(4).toString('hex')}-${base}`);
  fs.renameSync(file, target);
  fs.writeFileSync(`${target}.reason.txt`, `${reason}\n`);
  return target;
}

function resigned(bundle: Bundle, sign: SignFrames, rulesVersion: string): Bundle {
  return {
    ...bundle,
    rulesVersion,
    events: bundle.events.map((e) => ({ ...e, offender: sign(e.frames) })),
  };
}

/**
 * Ingests bundle files into the store. Exists as the one path every bundle takes into the
 * fleet (aggregate, --watch, serve's inbox), so validation, dedup and quarantine behave
 * the same everywhere.
 */
export function ingestFiles(
  store: FleetStore,
  files: string[],
  options: IngestOptions = {},
  fs: typeof nodeFs = nodeFs,
): IngestReport {
  const report: IngestReport = { files: 0, added: 0, duplicates: 0, unchanged: 0, skipped: [] };
  const batchSize = options.batchSize ?? INGEST_BATCH;
  const now = options.now ?? Date.now;
  let batch: IngestItem[] = [];
  const flush = (): void => {
    if (batch.length === 0) return;
    const r = store.ingest(batch, now());
    report.added += r.added;
    report.duplicates += r.duplicates;
    batch = [];
  };
  const skip = (file: string, reason: string): void => {
    const s: SkippedFile = { file, reason };
    if (options.inbox) {
      try {
        s.quarantinedTo = quarantineFile(file, options.inbox, reason, fs);
      } catch (err) {
        s.reason += ` (could not quarantine: ${(err as Error).message})`;
      }
    }
    report.skipped.push(s);
    options.onSkip?.(s);
  };
  for (const file of files) {
    if (options.signal?.aborted) break;
    report.files++;
    let st: nodeFs.Stats;
    let bytes: Buffer;
    try {
      st = fs.statSync(file);
      if (store.isKnownFile(file, st.size, st.mtimeMs)) {
        report.unchanged++;
        continue;
      }
      bytes = fs.readFileSync(file);
    } catch (err) {
      // Gone between listing and reading (a watcher race): nothing to ingest, nothing to move.
      if (errnoCode(err) === 'ENOENT') {
        report.files--;
        continue;
      }
      // Unreadable (permissions, I/O error): reported, left where it is.
      const s: SkippedFile = { file, reason: `${displayName(file)}: ${(err as Error).message}` };
      report.skipped.push(s);
      options.onSkip?.(s);
      continue;
    }
    let bundle: Bundle;
    try {
      bundle = parseBundleBytes(bytes, displayName(file));
    } catch (err) {
      if (err instanceof XrunhuntError) {
        skip(file, err.message);
        continue;
      }
      throw err;
    }
    // Same bundle twice (even within one batch): the store's unique hash counts it once.
    const hash = bundleHash(bundle);
    if (options.resign && bundle.rulesVersion !== options.resign.rulesVersion) {
      bundle = resigned(bundle, options.resign.sign, options.resign.rulesVersion);
    }
    batch.push({
      bundle,
      hash,
      source: file,
      file: { path: file, size: st.size, mtimeMs: st.mtimeMs },
    });
    if (batch.length >= batchSize) flush();
  }
  flush();
  return report;
}
