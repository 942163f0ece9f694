// The ingest shell: finds bundle files, skips ones already stored (same path, size, mtime),
// reads + validates + hashes the rest and stores them in batches (one transaction each).
// A bad bundle is skipped with its reason and, from an inbox, moved to quarantine/; it
// never stops the others.
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { basename, join } from 'node:path';
import { XrunhuntError, errnoCode } from '../errors.js';
import { describeInputKind, inspectInputPath } from '../io/input-path.js';
import { escapeControlChars } from '../text/untrusted-text.js';
import { bundleHash } from './content-hash.js';
import { MAX_BUNDLE_BYTES, parseBundleBytes, readBundleFileBytes } from './read.js';
import type { Bundle } from './schema.js';
import type { IngestItem, IngestResult, SignFrames } from './store.js';

/** What ingest needs of a store: the FleetBackend contract's write side, sync or async. */
export interface IngestTarget {
  isKnownFile(path: string, size: number, mtimeMs: number): boolean | Promise<boolean>;
  ingest(items: IngestItem[], nowMs: number): IngestResult | Promise<IngestResult>;
  /**
   * Optional: which of these files are already ingested, in one round trip (a networked
   * store answers a batch at once instead of one query per file). Keys: knownFileKey().
   */
  knownFiles?(files: { path: string; size: number; mtimeMs: number }[]): Promise<Set<string>>;
}

/** The key knownFiles answers with: path, size and mtime of a file. */
export const knownFileKey = (path: string, size: number, mtimeMs: number): string =>
  `${path}\u0000${size}\u0000${mtimeMs}`;

/** Bundles per transaction: large enough that commit cost is amortised (~1 fsync per 500). */
export const INGEST_BATCH = 500;

/** Files parsed between two turns of the event loop while a batch is being stored. */
const YIELD_EVERY = 8;

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
  /** Largest bundle file, and largest decompressed bundle (default MAX_BUNDLE_BYTES). */
  maxBytes?: number;
}

/** Quotes names with control characters or spaces so a hostile name cannot forge output. */
export function displayName(path: string): string {
  // JSON quoting escapes C0 controls, quotes and backslashes; escapeControlChars adds C1
  // (8-bit CSI), DEL and the bidi overrides that JSON leaves as they are.
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\s"\\]/.test(path)
    ? escapeControlChars(JSON.stringify(path))
    : path;
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
    // A named path that does not exist is an error, never an empty (exit 0) run.
    const facts = inspectInputPath(p, fs);
    if (facts.kind === 'directory') walk(p);
    // Anything else named on the command line is looked at by ingestFiles, which refuses
    // devices, FIFOs and oversized files by kind and size before reading a byte.
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
export async function ingestFiles(
  store: IngestTarget,
  files: string[],
  options: IngestOptions = {},
  fs: typeof nodeFs = nodeFs,
): Promise<IngestReport> {
  const report: IngestReport = { files: 0, added: 0, duplicates: 0, unchanged: 0, skipped: [] };
  const batchSize = options.batchSize ?? INGEST_BATCH;
  const now = options.now ?? Date.now;
  let batch: IngestItem[] = [];
  // One batch is stored while the next is read and parsed (a networked store spends as long
  // as the parse does; doing both at once nearly halves the wall time). At most one batch is
  // in flight, so memory stays at two batches; its failure is kept and thrown at the next
  // flush, never left as an unhandled rejection while the parse loop runs.
  let inFlight: Promise<void> | null = null;
  let storeFailure: { error: unknown } | null = null;
  const settle = async (): Promise<void> => {
    if (inFlight) await inFlight;
    inFlight = null;
    if (storeFailure) throw storeFailure.error;
  };
  const flush = async (): Promise<void> => {
    await settle();
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    inFlight = Promise.resolve()
      .then(() => store.ingest(items, now()))
      .then(
        (r) => {
          report.added += r.added;
          report.duplicates += r.duplicates;
        },
        (error: unknown) => {
          storeFailure = { error };
        },
      );
  };
  // Every reason is escaped here: it may quote a file name or a bundle's bytes.
  const skip = (file: string, why: string, quarantine: boolean): void => {
    const s: SkippedFile = { file, reason: escapeControlChars(why) };
    if (options.inbox && quarantine) {
      try {
        s.quarantinedTo = quarantineFile(file, options.inbox, s.reason, fs);
      } catch (err) {
        s.reason += ` (could not quarantine: ${escapeControlChars((err as Error).message)})`;
      }
    }
    report.skipped.push(s);
    options.onSkip?.(s);
  };
  let known: Set<string> | null = null;
  // Each file is stat'ed once, a chunk at a time, so a networked store can answer "already
  // ingested?" for the whole chunk in one round trip.
  let stats: (nodeFs.Stats | { error: unknown })[] = [];
  for (const [i, file] of files.entries()) {
    if (options.signal?.aborted) break;
    if (i % batchSize === 0) {
      stats = files.slice(i, i + batchSize).map((path) => {
        try {
          return fs.statSync(path);
        } catch (error) {
          return { error };
        }
      });
      if (store.knownFiles) {
        const chunk: { path: string; size: number; mtimeMs: number }[] = [];
        for (const [j, s] of stats.entries())
          if (!('error' in s) && s.isFile())
            chunk.push({ path: files[i + j]!, size: s.size, mtimeMs: s.mtimeMs });
        known = await store.knownFiles(chunk);
      }
    }
    // The parse below is synchronous: let the stored batch's queries make progress between
    // files (each of its round trips needs the event loop), or it would advance only here.
    if (inFlight && i % YIELD_EVERY === 0) await new Promise<void>((r) => setImmediate(r));
    report.files++;
    const name = displayName(file);
    const st = stats[i % batchSize]!;
    if ('error' in st) {
      // Gone between listing and reading (a watcher race): nothing to ingest, nothing to move.
      if (errnoCode(st.error) === 'ENOENT') {
        report.files--;
        continue;
      }
      // Unreadable (permissions, I/O error): reported, left where it is.
      skip(file, `${name}: ${(st.error as Error).message}`, false);
      continue;
    }
    // A device, FIFO or socket is refused by kind (never opened, never moved).
    if (!st.isFile()) {
      const kind = st.isFIFO()
        ? 'fifo'
        : st.isCharacterDevice()
          ? 'char-device'
          : st.isBlockDevice()
            ? 'block-device'
            : st.isSocket()
              ? 'socket'
              : st.isDirectory()
                ? 'directory'
                : 'other';
      skip(
        file,
        `${name}: expected a bundle (a regular file), found ${describeInputKind(kind)}; not read`,
        false,
      );
      continue;
    }
    if (
      known !== null
        ? known.has(knownFileKey(file, st.size, st.mtimeMs))
        : await store.isKnownFile(file, st.size, st.mtimeMs)
    ) {
      report.unchanged++;
      continue;
    }
    let read: { bytes: Buffer; size: number; mtimeMs: number };
    try {
      read = readBundleFileBytes(file, `bundle ${name}`, options.maxBytes ?? MAX_BUNDLE_BYTES, fs);
    } catch (err) {
      if (!(err instanceof XrunhuntError)) throw err;
      if (err.code === 'not-found') {
        report.files--;
        continue;
      }
      // Too large is the file's fault (quarantined from an inbox); anything else (rights,
      // replaced by a device since the listing) leaves it where it is.
      skip(file, err.message, err.code === 'format');
      continue;
    }
    const bytes = read.bytes;
    let bundle: Bundle;
    try {
      bundle = parseBundleBytes(bytes, name, options.maxBytes ?? MAX_BUNDLE_BYTES);
    } catch (err) {
      if (err instanceof XrunhuntError) {
        skip(file, err.message, true);
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
      file: { path: file, size: read.size, mtimeMs: read.mtimeMs },
    });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  await settle();
  return report;
}

/** An ingest that looked at nothing (the start of a sum over inboxes). */
export function emptyIngestReport(): IngestReport {
  return { files: 0, added: 0, duplicates: 0, unchanged: 0, skipped: [] };
}

/** Adds two ingest reports, e.g. one per inbox, into one. */
export function mergeIngestReports(a: IngestReport, b: IngestReport): IngestReport {
  return {
    files: a.files + b.files,
    added: a.added + b.added,
    duplicates: a.duplicates + b.duplicates,
    unchanged: a.unchanged + b.unchanged,
    skipped: [...a.skipped, ...b.skipped],
  };
}

/** What gets re-signed with the analyzer's current rules in one aggregate run. */
export interface ResignPlan {
  /** Recompute every stored signature (--resign). */
  store: boolean;
  /** Re-sign bundles as they are ingested (written with other rules than the store's). */
  incoming: boolean;
}

/**
 * The re-sign policy: --resign re-signs the store and everything ingested with it; a store
 * that was re-signed once (it records a rules version) keeps every later bundle — given now
 * or arriving in a watched inbox — consistent with it. Exists so the rule lives in one place
 * and the analyzer (a large import) is loaded only when something will be re-signed.
 */
export function resignPlan(o: {
  requested: boolean;
  storeRulesVersion: string | null;
  /** Bundles will be ingested: files were named, or inboxes are watched. */
  willIngest: boolean;
}): ResignPlan {
  if (o.requested) return { store: true, incoming: true };
  return { store: false, incoming: o.willIngest && o.storeRulesVersion !== null };
}
