// Scrubs a finished bundle folder in place (thin shell over the pure scrubber): the folder
// the README tells users to attach holds more than bundle.json.gz — events.ndjson written
// live during the run, the raw kernel.log, report.txt, an HTML report — and every one of
// them must leave the machine without identifiers. Each file is rewritten atomically
// (temp + fsync + rename) and streamed in batches of lines, so a 100 MB kernel log costs
// no more memory than its longest line. Call it once every writer of the folder is closed:
// a writer still holding events.ndjson open would append to the replaced file.
import { readdir, lstat, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode, errorMessage, XrunhuntError } from '../errors.js';
import { inspectInputPath, requireRegularFileWithin } from '../io/input-path.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { readBundle } from './read.js';
import { inspectText, rewriteLinesAtomic } from './rewrite-lines.js';
import type { Scrubber } from './scrub.js';
import { processIsAlive } from '../process-alive.js';
import { isBundleJson } from './validate.js';
import { writeBundle, writeFileAtomic } from './write.js';

/** How a file in a bundle folder is scrubbed, decided from its name. */
export type BundleFileKind = 'bundle' | 'ndjson' | 'json' | 'html' | 'text' | 'text-gz' | 'sniff';

/** Picks the scrub method for a file name (pure); 'sniff' = look at the bytes first. */
export function bundleFileKind(name: string): BundleFileKind {
  const n = name.toLowerCase();
  if (n.endsWith('.json.gz')) return 'bundle';
  if (n.endsWith('.ndjson') || n.endsWith('.jsonl')) return 'ndjson';
  if (n.endsWith('.json')) return 'json';
  if (/\.(?:html?|svg|xhtml)$/.test(n)) return 'html';
  if (n.endsWith('.gz')) return 'text-gz';
  if (/\.(?:txt|log|md|csv|tsv|text|out|err)$/.test(n)) return 'text';
  return 'sniff';
}

// Temp files of xrunhunt's atomic writers (write.ts, rewrite-lines.ts), named
// `.NAME.PID.RAND.tmp`: a live writer may be about to rename one into place, so it is not
// touched; one whose writer died (a crash mid-write) is a stale partial copy of the folder's
// data — it would be attached with the folder — and is removed.
const ATOMIC_TEMP_RE = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

const processAlive = (pid: number): boolean => pid === process.pid || processIsAlive(pid);

// A whole-file JSON document (not NDJSON, not a bundle) is read into memory: bounded.
const MAX_JSON_BYTES = 64 * 1024 * 1024;
// An HTML report is scrubbed whole up to this size (its JSON blocks must not be split).
const MAX_WHOLE_HTML_BYTES = 64 * 1024 * 1024;

/** Scrubs one NDJSON line: JSON values are walked (so escapes cannot hide a name); other text is scrubbed as text. */
export function scrubNdjsonLine(line: string, scrubber: Scrubber): string {
  return scrubNdjsonBatch(line, scrubber);
}

/** Scrubs a batch of NDJSON lines, all JSON values of the batch in one pass. */
export function scrubNdjsonBatch(batch: string, scrubber: Scrubber): string {
  const lines = batch.split('\n');
  const parsed: unknown[] = [];
  const where: number[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      parsed.push(JSON.parse(line) as unknown);
      where.push(i);
    } catch {
      // A line cut short by a crash, or not JSON at all: still scrubbed, kept as it was otherwise.
      lines[i] = scrubber.text(line);
    }
  });
  const clean = scrubber.values(parsed);
  where.forEach((lineIndex, k) => (lines[lineIndex] = JSON.stringify(clean[k])));
  return lines.join('\n');
}

/**
 * Rewrites a live-written event log (events.ndjson) scrubbed, streaming and atomically.
 * Exists because the event log is appended during the run, before anyone could scrub it.
 */
export async function scrubEventLogFile(path: string, scrubber: Scrubber): Promise<void> {
  requireRegularFileWithin(inspectInputPath(path), Number.MAX_SAFE_INTEGER, 'an event log');
  await rewriteLinesAtomic(path, (batch) => scrubNdjsonBatch(batch, scrubber));
}

/**
 * Rewrites a text (or HTML) file scrubbed, streaming and atomically; `.gz` stays gzipped.
 * Text that is not valid UTF-8 is rewritten byte for byte. Returns false, leaving the file
 * alone, when it is binary (NUL bytes in its first 8 KiB).
 */
export async function scrubTextFile(
  path: string,
  scrubber: Scrubber,
  options: { html?: boolean; gzip?: boolean } = {},
): Promise<boolean> {
  const facts = inspectInputPath(path);
  requireRegularFileWithin(facts, Number.MAX_SAFE_INTEGER, 'a text file');
  const gzip = options.gzip === true;
  const text = await inspectText(path, gzip);
  if (text.binary) return false;
  const fn = options.html ? scrubber.html : scrubber.text;
  // HTML whole (up to a bound), so a JSON data block is never split between two batches.
  const whole = options.html === true && !gzip && (facts.sizeBytes ?? 0) <= MAX_WHOLE_HTML_BYTES;
  await rewriteLinesAtomic(path, fn, { gzip, encoding: text.encoding, whole });
  return true;
}

/** Rewrites a bundle file scrubbed (read, validated, scrubbed, written atomically). */
export async function scrubBundleFile(path: string, scrubber: Scrubber): Promise<void> {
  await writeBundle(path, scrubber.bundle(await readBundle(path)));
}

async function scrubJsonFile(path: string, scrubber: Scrubber): Promise<void> {
  requireRegularFileWithin(inspectInputPath(path), MAX_JSON_BYTES, 'a JSON file');
  const text = await readFile(path, 'utf8');
  if (isBundleJson(text)) return scrubBundleFile(path, scrubber);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON after all: scrubbed as text (or left alone if it is binary).
    await scrubTextFile(path, scrubber);
    return;
  }
  const indent = /^[[{]\r?\n( +)/.exec(text)?.[1]?.length ?? 0;
  const out =
    JSON.stringify(scrubber.value(value), null, indent) + (text.endsWith('\n') ? '\n' : '');
  await writeFileAtomic(path, Buffer.from(out));
}

/** What happened to each entry of the folder; callers warn about `skipped` and `failed`. */
export interface FolderScrubResult {
  /** File names rewritten scrubbed. */
  scrubbed: string[];
  /** Entries left alone on purpose, with the reason (links, sub-folders, binary files…). */
  skipped: { name: string; reason: string }[];
  /** Files that could not be scrubbed (unreadable, corrupt bundle…): they still hold identifiers. */
  failed: { name: string; error: string }[];
}

const BINARY = 'binary file (holds NUL bytes): not scrubbed';

async function scrubOne(path: string, name: string, scrubber: Scrubber): Promise<string | null> {
  switch (bundleFileKind(name)) {
    case 'bundle':
      await scrubBundleFile(path, scrubber);
      return null;
    case 'ndjson':
      await scrubEventLogFile(path, scrubber);
      return null;
    case 'json':
      await scrubJsonFile(path, scrubber);
      return null;
    case 'html':
      return (await scrubTextFile(path, scrubber, { html: true })) ? null : BINARY;
    case 'text-gz':
      return (await scrubTextFile(path, scrubber, { gzip: true })) ? null : BINARY;
    case 'text':
    case 'sniff':
      return (await scrubTextFile(path, scrubber)) ? null : BINARY;
  }
}

const message = (err: unknown): string => errorMessage(err);

/**
 * Scrubs every text file of a bundle folder in place — bundle.json.gz, events.ndjson,
 * kernel.log, report.txt, report.html and whatever else it holds — so the folder can be
 * attached as a whole. Symbolic links, sub-folders, devices and binary files are never
 * opened and are listed in `skipped`; per-file errors are listed in `failed`, not thrown.
 * `only`: the names a run wrote itself — a run scrubs those and never the user's own files.
 */
export async function scrubBundleFolder(
  dir: string,
  scrubber: Scrubber,
  only?: ReadonlySet<string>,
): Promise<FolderScrubResult> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => only === undefined || only.has(n)).sort();
  } catch (err) {
    const code = errnoCode(err);
    throw new XrunhuntError(
      code === 'ENOENT' ? 'not-found' : 'input',
      `${quoteUntrusted(dir)}: expected a bundle folder, ${code === 'ENOTDIR' ? 'found a file' : `cannot list it (${code ?? message(err)})`}`,
      { hint: 'name the folder a session or watch wrote (--out DIR)' },
    );
  }
  const result: FolderScrubResult = { scrubbed: [], skipped: [], failed: [] };
  for (const name of names) {
    const path = join(dir, name);
    try {
      const temp = ATOMIC_TEMP_RE.exec(name);
      if (temp) {
        if (processAlive(Number(temp[1]))) {
          result.skipped.push({ name, reason: 'temporary file of a writer still at work' });
        } else {
          await unlink(path);
          result.skipped.push({
            name,
            reason: 'stale temporary file of a crashed writer: removed',
          });
        }
        continue;
      }
      const st = await lstat(path);
      if (st.isSymbolicLink()) {
        result.skipped.push({ name, reason: 'symbolic link: not followed' });
        continue;
      }
      if (st.isDirectory()) {
        result.skipped.push({ name, reason: 'folder: not descended into' });
        continue;
      }
      if (!st.isFile()) {
        result.skipped.push({ name, reason: 'not a regular file' });
        continue;
      }
      const skipped = await scrubOne(path, name, scrubber);
      if (skipped) result.skipped.push({ name, reason: skipped });
      else result.scrubbed.push(name);
    } catch (err) {
      result.failed.push({ name, error: quoteUntrusted(message(err)) });
    }
  }
  return result;
}

/**
 * The warnings a command prints after scrubbing a folder (pure): files that still hold
 * identifiers, and entries left alone for a reason worth knowing. Exists so session and
 * watch word them the same way.
 */
export function folderScrubWarnings(dir: string, r: FolderScrubResult): string[] {
  const out: string[] = [];
  for (const f of r.failed) {
    out.push(
      `could not scrub ${quoteUntrusted(join(dir, f.name))} (${f.error}): it may still hold host names, user names or serial numbers; check it before attaching the folder`,
    );
  }
  for (const s of r.skipped) {
    if (s.reason.startsWith('stale temporary')) continue; // removed: nothing left to warn about
    out.push(`not scrubbed: ${quoteUntrusted(join(dir, s.name))}: ${s.reason}`);
  }
  return out;
}
