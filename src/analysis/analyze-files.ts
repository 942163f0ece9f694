// IO shell around the streaming analyzer: files or stdin, gzip by magic bytes, bundles by
// content, bounded line length, LF / CRLF / lone-CR line ends, binary / invalid-UTF-8
// warnings, progress on a terminal. Inputs are checked (kind, size, rights) before any is
// read; named devices and pipes are refused, endless non-file streams are stopped. Events
// are handed on as they are found (segmented-analyzer.ts), so memory stays bounded at any
// event count. The hot path skips whole runs of ordinary lines with Buffer.indexOf while
// no record is open (memchr speed).
import { closeSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Readable, Writable } from 'node:stream';
import { XrunhuntError, errnoCode } from '../errors.js';
import { describeInputKind, inspectInputPath } from '../io/input-path.js';
import { quoteUntrusted } from '../text/untrusted-text.js';
import { createSimdByteScan, scanWithBuffer, type ByteScan } from './byte-scan.js';
import { createOffenderTally } from './rank.js';
import { kernelPseudoFsName } from './kernel-pseudo-fs.js';
import { orderRotatedLogs } from './rotated-logs.js';
import { leadingFrameLines } from './cut-stack-start.js';
import type { RuleSet } from './rules.js';
import { createSegmentedAnalyzer, type SegmentedAnalyzer } from './segmented-analyzer.js';
import type { AnalysisResult, StreamedAnalysis, XrunEvent } from './types.js';

export interface AnalyzeFilesIo {
  stdin: Readable;
  stderr?: Writable;
  /** Show progress (bytes / percent) on stderr: only when stderr is a terminal. */
  progress?: boolean;
  signal?: AbortSignal;
}

/**
 * Seam for structured inputs: called with the whole text when an input is one JSON
 * document mentioning `formatVersion` (an xrunhunt bundle). Returns the bundle's events,
 * undefined to treat the input as plain text, or throws an XrunhuntError saying why the
 * bundle is refused (damaged, newer format).
 */
export type BundleInputHandler = (text: string, source: string) => XrunEvent[] | undefined;

/** The bounds of the IO shell; tests lower them to exercise the mechanisms. */
export interface InputLimits {
  /** Lines per analyzer segment (events held at once are at most a segment's). */
  segmentLines: number;
  /** Lines a record open at a segment cut may still run. */
  overlapLines: number;
  /** Streams that are not regular files (stdin, gzip output): stop after this many NUL bytes. */
  maxNulBytes: number;
  /** Streams that are not regular files: stop after this many bytes without a line end. */
  maxBytesWithoutLineEnd: number;
}

export interface AnalyzeFilesOptions {
  rules?: RuleSet;
  bundleHandler?: BundleInputHandler;
  limits?: Partial<InputLimits>;
}

export interface StreamAnalyzeOptions extends AnalyzeFilesOptions {
  /** Receives each event once, as soon as it is complete. */
  onEvent: (ev: XrunEvent) => void;
  /** Awaited after each block of input: the consumer's backpressure (e.g. stdout). */
  pace?: () => Promise<void>;
}

// While no record is open, only lines containing a header trigger (byte-scan.ts:
// TRIGGER_TEXTS) are decoded and parsed; the lines in between are only counted.
// 64 KiB: no kernel line is longer (printk limit 1 KiB); a 10 MB "line" is not a log line.
// Lines before a trigger line that may hold the start of a wrapped header (message-catalogue.ts
// reassembles headers over up to four physical lines).
const WRAP_LOOKBEHIND_LINES = 3;
const MAX_LINE_BYTES = 65536;
// Bytes of each input kept to look at how it starts (a stack cut by log rotation shows at once).
const HEAD_BYTES = 16384;

/** Passes chunks through, keeping a copy of the first `max` bytes for a look afterwards. */
function captureHead(
  chunks: AsyncIterable<Buffer>,
  max: number,
): { chunks: AsyncIterable<Buffer>; text(): string } {
  const kept: Buffer[] = [];
  let size = 0;
  async function* pass(): AsyncGenerator<Buffer> {
    for await (const c of chunks) {
      if (size < max) {
        const part = c.subarray(0, max - size);
        kept.push(Buffer.from(part));
        size += part.length;
      }
      yield c;
    }
  }
  return { chunks: pass(), text: () => Buffer.concat(kept).toString('utf8') };
}
// Progress is worth printing only for inputs that take a while.
const PROGRESS_MIN_BYTES = 32 * 1024 * 1024;
// A bundle is small; refuse to buffer more than this looking for one.
const MAX_JSON_PEEK = 64 * 1024 * 1024;
// Endless-stream guards: 1 MiB of NUL bytes or 16 MiB without a line end is no kernel log
// (a real log's NUL run after a crash is a few KiB; its longest line 1 KiB).
const DEFAULT_LIMITS: InputLimits = {
  segmentLines: 32768,
  overlapLines: 1024,
  maxNulBytes: 1024 * 1024,
  maxBytesWithoutLineEnd: 16 * 1024 * 1024,
};
// 4 MiB reads: few iterations, and the buffer is reused (no garbage per chunk); the size of
// the SIMD scanner's read window (byte-scan.ts SCAN_REGION_BYTES).
const READ_BYTES = 4 * 1024 * 1024;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface PlannedInput {
  path: string;
  label: string;
  source: string | undefined;
  /** Bytes of a regular file; undefined for standard input. */
  size: number | undefined;
}

/** Checks one named input before anything is read: a regular file, or a refusal that says why. */
function planInput(path: string, multi: boolean): PlannedInput {
  if (path === '-') {
    return { path, label: 'standard input', source: multi ? '-' : undefined, size: undefined };
  }
  const facts = inspectInputPath(path);
  const shown = quoteUntrusted(path);
  if (facts.kind === 'directory') {
    throw new XrunhuntError('input', `${shown} is a directory, expected a kernel log file`, {
      hint: `pass the log files inside it, e.g. xrunhunt analyze ${quoteUntrusted(path.replace(/\/$/, ''))}/*.log`,
    });
  }
  if (facts.kind !== 'file') {
    throw new XrunhuntError(
      'input',
      `${shown}: expected a kernel log (a regular file), found ${describeInputKind(facts.kind)}; nothing was read from it`,
      {
        hint:
          facts.kind === 'fifo' || facts.kind === 'char-device'
            ? `to analyse what it produces, pipe a bounded part of it in: head -c 64M ${shown} | xrunhunt analyze -`
            : 'save the log into a regular file first',
      },
    );
  }
  const pseudo = kernelPseudoFsName(path);
  if (pseudo !== undefined) {
    throw new XrunhuntError(
      'input',
      `${shown}: expected a kernel log (a regular file), found a file of the kernel's ${pseudo} file system, which may block or never end; nothing was read from it`,
      {
        hint: 'for the kernel log use: dmesg | xrunhunt analyze -   (or save it first: dmesg > kern.txt)',
      },
    );
  }
  return {
    path,
    label: path,
    source: multi ? basename(path) : undefined,
    size: facts.sizeBytes ?? 0,
  };
}

/** Opens a checked file, turning refusals into user errors (EACCES is common on kern.log). */
function openInput(input: PlannedInput): number {
  try {
    return openSync(input.path, 'r');
  } catch (err) {
    const code = errnoCode(err);
    const shown = quoteUntrusted(input.label);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new XrunhuntError('permission', `cannot read ${shown}: permission denied`, {
        hint: 'run as a user that can read it (kern.log is often root/adm only), or pipe it: sudo cat FILE | xrunhunt analyze -',
      });
    }
    if (code === 'ENOENT') {
      throw new XrunhuntError('not-found', `cannot read ${shown}: it disappeared`, {
        hint: 'a log rotation may have moved it; name the rotated file',
      });
    }
    throw new XrunhuntError('input', `cannot read ${shown}: ${code ?? String(err)}`);
  }
}

/**
 * Reads a regular file. Plain text reuses one buffer (each chunk is consumed before the next
 * read); gzip gets fresh buffers, as the decompressor may still hold the previous one.
 */
async function* readFileChunks(fd: number, window: Buffer | null): AsyncGenerator<Buffer> {
  try {
    let buf = window && window.length >= READ_BYTES ? window : Buffer.allocUnsafe(READ_BYTES);
    let first = true;
    let reuse = true;
    for (;;) {
      if (!reuse) buf = Buffer.allocUnsafe(READ_BYTES);
      const n = readSync(fd, buf, 0, READ_BYTES, null);
      if (n <= 0) return;
      if (first) {
        first = false;
        reuse = !(n >= 2 && buf[0] === 0x1f && buf[1] === 0x8b);
      }
      yield buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

interface Unzipped {
  chunks: AsyncGenerator<Buffer>;
  /** After the stream ended: whether it was gzip, and the decompression error if any. */
  state: { gzip: boolean; error: Error | undefined };
}

function withGunzip(source: AsyncIterable<Buffer>): Unzipped {
  const state: Unzipped['state'] = { gzip: false, error: undefined };
  const chunks = async function* (): AsyncGenerator<Buffer> {
    const it = source[Symbol.asyncIterator]();
    const first = await it.next();
    if (first.done) return;
    const head = first.value;
    const rest = async function* (): AsyncGenerator<Buffer> {
      yield head;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    };
    if (!(head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)) {
      yield* rest();
      return;
    }
    state.gzip = true;
    const gunzip = createGunzip();
    const closed = new Promise<void>((r) => gunzip.once('close', r));
    const feeder = (async () => {
      try {
        for await (const c of rest()) {
          if (gunzip.destroyed) break;
          if (!gunzip.write(c))
            await Promise.race([new Promise((r) => gunzip.once('drain', r)), closed]);
        }
        gunzip.end();
      } catch (err) {
        gunzip.destroy(err as Error);
      }
    })();
    try {
      for await (const c of gunzip as AsyncIterable<Buffer>) yield c;
    } catch (err) {
      state.error = err as Error;
    } finally {
      gunzip.destroy();
    }
    await feeder.catch(() => undefined);
  };
  return { chunks: chunks(), state };
}

/** Whether the bytes are exactly one JSON document (not NDJSON, not text). */
function isOneJsonDocument(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

const isJsonSpace = (b: number | undefined): boolean => b === 32 || b === 10 || b === 13 || b === 9;

/**
 * Whether the first bytes (after a BOM and white space) open a JSON document: an object, a
 * string, `null`, or an array of objects, arrays or strings. A dmesg line opens with `[` and
 * a number (`[    0.000000]`), so an array is only taken as JSON when what follows is not.
 */
function opensJsonDocument(head: Buffer): boolean {
  let i = head.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
  while (i < head.length && isJsonSpace(head[i])) i++;
  const c = head[i];
  if (c === 0x7b || c === 0x22) return true;
  if (c === 0x6e) return head.subarray(i, i + 4).toString('latin1') === 'null';
  if (c !== 0x5b) return false;
  let j = i + 1;
  while (j < head.length && isJsonSpace(head[j])) j++;
  const n = head[j];
  return n === 0x7b || n === 0x5b || n === 0x5d || n === 0x22;
}

/**
 * Sees whether an input is a bundle: an input that opens a JSON object and is small enough is
 * buffered whole and given to `onJson` (which consumes it or throws a refusal); anything else
 * passes through untouched.
 */
async function* peekJson(
  source: AsyncIterable<Buffer>,
  onJson: (bytes: Buffer) => boolean,
): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const head = first.value;
  if (opensJsonDocument(head)) {
    // Copies: file chunks come from one reused read buffer.
    const parts: Buffer[] = [Buffer.from(head)];
    let size = head.length;
    let r = await it.next();
    while (!r.done && size < MAX_JSON_PEEK) {
      parts.push(Buffer.from(r.value));
      size += r.value.length;
      r = await it.next();
    }
    if (r.done && onJson(Buffer.concat(parts))) return;
    yield* parts;
    if (!r.done) yield r.value;
  } else yield head;
  for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
}

interface FeedStats {
  bytes: number;
  binary: boolean;
  badUtf8: boolean;
  longLines: number;
  /** Why reading stopped early (an endless or binary stream), if it did. */
  stopped: string | undefined;
}

/**
 * Feeds one byte stream into the analyzer, line by line, with the idle fast path. Line
 * ends are LF, CRLF or a lone CR (old Mac files, some serial captures): lone CRs become LF
 * in place before the line scan. `guarded`: the stream is not a regular file, so it may
 * never end; NUL floods and line-end-free floods stop it.
 */
async function feedStream(
  stream: AsyncIterable<Buffer>,
  a: SegmentedAnalyzer,
  onBytes: (n: number) => void,
  signal: AbortSignal | undefined,
  pace: (() => Promise<void>) | undefined,
  guarded: () => boolean,
  limits: InputLimits,
  scan: ByteScan,
): Promise<FeedStats> {
  let carry: Buffer | null = null;
  let discarding = false;
  let bytes = 0;
  let binary = false;
  let badUtf8 = false;
  let longLines = 0;
  let stopped: string | undefined;
  let nulBytes = 0;
  let sinceLineEnd = 0;
  // The previous chunk ended with a CR: LF or not decides whether it ended a line.
  let pendingCr = false;

  const pushLine = (buf: Buffer, s: number, e: number): void => {
    let end = e;
    if (end > s && buf[end - 1] === 13) end--;
    const text = buf.toString('utf8', s, end);
    if (!badUtf8 && text.includes('\uFFFD')) badUtf8 = true;
    if (!binary && text.includes('\u0000')) binary = true;
    a.push(text);
  };

  const processChunk = (buf: Buffer): number => {
    // Returns the start of the unfinished last line.
    let pos = 0;
    const len = buf.length;
    while (pos < len) {
      if (a.idle()) {
        // Skip to the line of the earliest trigger, counting the complete lines before it.
        const best = scan.findTrigger(buf, pos, len);
        let p: number;
        if (best >= 0) {
          p = Math.max(pos, buf.lastIndexOf(10, best) + 1);
          // A header wrapped by a mail client or terminal can start on a line without a
          // trigger (`ALSA` / `sound/core/pcm_lib.c:169:` / `XRUN: …`): hand the analyzer
          // the lines just before the trigger too, so it reassembles the header where the
          // wrap began (catalogue: a header spans at most WRAP_LOOKBEHIND_LINES + 1 lines).
          for (let k = 0; k < WRAP_LOOKBEHIND_LINES && p > pos; k++) {
            p = Math.max(pos, buf.lastIndexOf(10, p - 2) + 1);
          }
        } else {
          const last = len > pos ? buf.lastIndexOf(10, len - 1) : -1;
          p = last >= pos ? last + 1 : pos;
        }
        const skipped = scan.countLineEnds(buf, pos, p);
        if (skipped > 0) a.skipLines(skipped);
        pos = p;
        if (best < 0) return pos;
      }
      const nl = buf.indexOf(10, pos);
      if (nl < 0) return pos;
      if (nl - pos > MAX_LINE_BYTES) {
        longLines++;
        pushLine(buf, pos, pos + MAX_LINE_BYTES);
      } else pushLine(buf, pos, nl);
      pos = nl + 1;
    }
    return pos;
  };

  let first = true;
  for await (const chunk of stream) {
    if (signal?.aborted) break;
    bytes += chunk.length;
    onBytes(chunk.length);
    let buf: Buffer = chunk;
    if (first) {
      first = false;
      // NUL bytes near the start: not a text log (skipped lines are never decoded later).
      if (buf.subarray(0, 65536).includes(0)) binary = true;
    }
    // A CR that ended the previous chunk was a line end of its own unless this one starts with LF.
    const crEndedLine = pendingCr && buf[0] !== 10;
    pendingCr = false;
    for (let i = buf.indexOf(13); i >= 0; i = buf.indexOf(13, i + 1)) {
      if (i + 1 === buf.length) pendingCr = true;
      else if (buf[i + 1] !== 10) buf[i] = 10;
    }
    if (guarded()) {
      for (
        let i = buf.indexOf(0);
        i >= 0 && nulBytes <= limits.maxNulBytes;
        i = buf.indexOf(0, i + 1)
      )
        nulBytes++;
      const lastLf = buf.lastIndexOf(10);
      sinceLineEnd = lastLf < 0 ? sinceLineEnd + buf.length : buf.length - lastLf - 1;
      if (nulBytes > limits.maxNulBytes) {
        stopped = `more than ${limits.maxNulBytes} NUL bytes`;
      } else if (sinceLineEnd > limits.maxBytesWithoutLineEnd) {
        stopped = `more than ${limits.maxBytesWithoutLineEnd} bytes without a line end`;
      }
      if (stopped) break;
    }
    if (crEndedLine) {
      if (carry) {
        pushLine(carry, 0, carry.length);
        carry = null;
      }
      discarding = false;
    }
    if (discarding) {
      const nl = buf.indexOf(10);
      if (nl < 0) continue;
      buf = buf.subarray(nl + 1);
      discarding = false;
    }
    if (carry) {
      // Finish the carried line with the head of this chunk (never copy the whole chunk).
      const nl = buf.indexOf(10);
      if (nl < 0) {
        carry = Buffer.concat([carry, buf]);
        if (carry.length > MAX_LINE_BYTES) {
          longLines++;
          pushLine(carry, 0, MAX_LINE_BYTES);
          carry = null;
          discarding = true;
        }
        continue;
      }
      const joined = Buffer.concat([carry, buf.subarray(0, nl + 1)]);
      carry = null;
      if (joined.length - 1 > MAX_LINE_BYTES) {
        longLines++;
        pushLine(joined, 0, MAX_LINE_BYTES);
      } else processChunk(joined);
      buf = buf.subarray(nl + 1);
    }
    const rest = processChunk(buf);
    if (rest < buf.length) {
      if (buf.length - rest > MAX_LINE_BYTES) {
        // An absurdly long line: keep its head, drop the rest up to the next newline.
        longLines++;
        pushLine(buf, rest, rest + MAX_LINE_BYTES);
        discarding = true;
      } else carry = Buffer.from(buf.subarray(rest));
    }
    if (pace) await pace();
  }
  if (carry && carry.length > 0) pushLine(carry, 0, carry.length);
  return { bytes, binary, badUtf8, longLines, stopped };
}

/** Why a JSON input that names `formatVersion` cannot be read as a bundle, before parsing it. */
function bundleDamage(bytes: Buffer, gzipError: Error | undefined): string | undefined {
  if (gzipError) {
    return /unexpected end/i.test(gzipError.message)
      ? 'the gzip data is truncated (the file was cut short while copying or uploading)'
      : `the gzip data is corrupt (${gzipError.message})`;
  }
  if (bytes.subarray(0, 3).equals(UTF8_BOM)) {
    return 'it starts with a UTF-8 byte-order mark (EF BB BF): the file was re-saved by an editor; xrunhunt bundles are plain JSON';
  }
  return undefined;
}

/**
 * Analyzes files (or '-' for stdin) and hands each event to `onEvent` as soon as it is
 * complete; returns the ranking and counts. Exists so `analyze` can stream events to its
 * output and keep only the ranking state, at any event count.
 */
export async function streamAnalyzeFiles(
  inputs: string[] | '-',
  io: AnalyzeFilesIo,
  options: StreamAnalyzeOptions,
): Promise<StreamedAnalysis> {
  const limits: InputLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const named = inputs === '-' || inputs.length === 0 ? ['-'] : orderRotatedLogs(inputs);
  const multi = named.length > 1;
  // Every input is checked before the first is read: a refusal costs no time.
  const planned = named.map((p) => planInput(p, multi));
  const tally = createOffenderTally();
  const emit = (ev: XrunEvent): void => {
    tally.add(ev);
    options.onEvent(ev);
  };
  const warnings: string[] = [];
  const warn = (w: string): void => {
    if (warnings.length < 100 && !warnings.includes(w)) warnings.push(w);
  };
  const a = createSegmentedAnalyzer({
    ...(options.rules ? { rules: options.rules } : {}),
    onEvent: emit,
    segmentLines: limits.segmentLines,
    overlapLines: limits.overlapLines,
  });
  // One scanner (and scan memory) per analysis: concurrent analyses must not share it.
  const simd = createSimdByteScan();
  const scan: ByteScan = simd ?? scanWithBuffer;
  const totalKnown = planned.reduce<number>((s, p) => s + (p.size ?? 0), 0);
  const showProgress =
    io.progress === true && io.stderr !== undefined && totalKnown >= PROGRESS_MIN_BYTES;
  let done = 0;
  let lastShown = 0;
  const onBytes = (n: number): void => {
    done += n;
    if (!showProgress || done - lastShown < 8 * 1024 * 1024) return;
    lastShown = done;
    const mb = (done / 1048576).toFixed(0);
    const p = totalKnown > 0 ? ` (${Math.min(100, Math.floor((done / totalKnown) * 100))}%)` : '';
    io.stderr!.write(`\ranalyzing: ${mb} MiB${p}   `);
  };

  let previousWasText = false;
  for (const input of planned) {
    const label = quoteUntrusted(input.label);
    const raw: AsyncIterable<Buffer> =
      input.size === undefined
        ? (io.stdin as AsyncIterable<Buffer>)
        : readFileChunks(openInput(input), simd ? simd.window : null);
    const unzipped = withGunzip(raw);
    let bundleEvents: XrunEvent[] | undefined;
    const handler = options.bundleHandler;
    const stream = handler
      ? peekJson(unzipped.chunks, (bytes) => {
          // A bundle names its format; a JSON log line or document that does not is text.
          if (bytes.indexOf('"formatVersion"') < 0) {
            // journalctl -o json is one object per line; one document is something else.
            if (isOneJsonDocument(bytes))
              warn(
                `${label} is one JSON document but not an xrunhunt bundle (it has no "formatVersion"); read as a text log`,
              );
            return false;
          }
          if (
            bytes
              .subarray(0, 64)
              .toString('utf8')
              .trimStart()
              .replace(/^\uFEFF/, '')
              .startsWith('[')
          ) {
            throw new XrunhuntError('format', `${label} is a JSON array, not one bundle`, {
              hint: 'give each bundle as its own file (xrunhunt analyze a.json.gz b.json.gz)',
            });
          }
          const damage = bundleDamage(bytes, unzipped.state.error);
          if (damage) {
            throw new XrunhuntError('format', `bundle ${label}: ${damage}`, {
              hint: 'ask for the bundle again; xrunhunt writes complete files only',
            });
          }
          let evs: XrunEvent[] | undefined;
          try {
            evs = handler(bytes.toString('utf8'), input.source ?? input.label);
          } catch (err) {
            if (!(err instanceof XrunhuntError)) throw err;
            // The reader's message may quote the file's bytes: make them inert.
            throw new XrunhuntError(err.code, quoteUntrusted(err.message, 400), {
              ...(err.hint !== undefined ? { hint: err.hint } : {}),
              cause: err,
            });
          }
          if (!evs) return false;
          bundleEvents = evs;
          return true;
        })
      : unzipped.chunks;
    // Consecutive text inputs are one line stream (a rotated log's pieces): a record open
    // at the end of one goes on into the next. A bundle in between ends it.
    a.startSource(input.source, previousWasText);
    // A record still open from the previous piece goes on here; otherwise frames at the very
    // start of this input belong to a header we never saw (a rotated log given newest first).
    const carried = previousWasText && !a.idle();
    const head = captureHead(stream, HEAD_BYTES);
    let stats: FeedStats;
    try {
      stats = await feedStream(
        head.chunks,
        a,
        onBytes,
        io.signal,
        options.pace,
        () => input.size === undefined || unzipped.state.gzip,
        limits,
        scan,
      );
    } catch (err) {
      if (err instanceof XrunhuntError) throw err;
      const code = errnoCode(err);
      if (code === 'EISDIR') {
        throw new XrunhuntError('input', `${label} is a directory, expected a kernel log file`);
      }
      throw new XrunhuntError('input', `cannot read ${label}: ${(err as Error).message}`);
    }
    if (bundleEvents) {
      a.startSource(input.source, false);
      for (const ev of bundleEvents) emit(ev);
      if (options.pace) await options.pace();
      previousWasText = false;
      continue;
    }
    previousWasText = true;
    if (/\.json(?:\.gz)?$/i.test(input.label) && handler)
      warn(`${label} is named like a bundle but holds no xrunhunt bundle; read as a text log`);
    const cutFrames = carried ? 0 : leadingFrameLines(head.text());
    if (cutFrames >= 2) {
      warn(
        `${label} starts inside a stack dump (${cutFrames} frame lines before any header): its header is in a piece not read before it, so that event's stack is incomplete; give rotated pieces oldest first (kern.log.1 kern.log) or all of them`,
      );
    }
    if (unzipped.state.error) {
      warn(
        `${label}: the gzip data is truncated or corrupt (${quoteUntrusted(unzipped.state.error.message)}); analysed what could be decompressed`,
      );
    }
    if (stats.stopped) {
      warn(
        `${label}: stopped reading after ${(stats.bytes / 1048576).toFixed(1)} MiB: ${stats.stopped} is not a text kernel log; analysed what came before`,
      );
    }
    if (stats.bytes === 0) warn(`${label} is empty`);
    if (stats.binary)
      warn(`${label} contains binary data (NUL bytes): is it really a text kernel log?`);
    if (stats.badUtf8)
      warn(`${label} contains bytes that are not valid UTF-8; they were replaced with U+FFFD`);
    if (stats.longLines > 0) {
      warn(
        `${label}: ${stats.longLines} line(s) longer than ${MAX_LINE_BYTES} bytes were truncated`,
      );
    }
    if (io.signal?.aborted) break;
  }
  if (showProgress) io.stderr!.write('\r\u001b[K');
  const end = a.finish();
  for (const w of end.warnings) warn(w);
  return { offenders: tally.offenders(), summary: tally.summary(end.lines), warnings };
}

/**
 * Analyzes files (or '-' for stdin) into one result holding every event: for tests, the
 * library and inputs of known size (memory grows with the events; `analyze` streams instead).
 */
export async function analyzeFiles(
  inputs: string[] | '-',
  io: AnalyzeFilesIo,
  options: AnalyzeFilesOptions = {},
): Promise<AnalysisResult> {
  const events: XrunEvent[] = [];
  const r = await streamAnalyzeFiles(inputs, io, { ...options, onEvent: (e) => events.push(e) });
  return { events, ...r };
}
