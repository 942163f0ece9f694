// IO shell around the streaming analyzer: files or stdin, gzip by magic bytes, bounded
// line length, binary / invalid-UTF-8 warnings, progress on a terminal. The hot path skips
// whole runs of ordinary lines with Buffer.indexOf while no record is open (memchr speed).
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { createGunzip } from 'node:zlib';
import type { Readable, Writable } from 'node:stream';
import { XrunhuntError, errnoCode } from '../errors.js';
import { createLogAnalyzer, type AnalyzerOptions, type LogAnalyzer } from './analyzer.js';
import type { AnalysisResult, XrunEvent } from './types.js';

export interface AnalyzeFilesIo {
  stdin: Readable;
  stderr?: Writable;
  /** Show progress (bytes / percent) on stderr: only when stderr is a terminal. */
  progress?: boolean;
  signal?: AbortSignal;
}

/**
 * Seam for structured inputs: called with the whole text when an input is one JSON
 * document with `formatVersion` (an xrunhunt bundle). Returns the bundle's events, or
 * undefined to treat the input as plain text.
 */
export type BundleInputHandler = (text: string, source: string) => XrunEvent[] | undefined;

export interface AnalyzeFilesOptions extends AnalyzerOptions {
  bundleHandler?: BundleInputHandler;
}

// Byte patterns that can start a record. While no record is open, only lines containing one
// of these are decoded and parsed. Every header of kernel-log-formats §2 contains one:
// XRUN (all XRUN headers, 3.18 `XRUN: …, pos =`), xrun (kprobe `(__snd_pcm_xrun+0x0`,
// tracepoint `xrun:`, vendor `buffer xrun[`), `PCM:` (every hw-pointer message since
// 2.6.30), `Unexp` (2.6.1–2.6.29 `Unexpected hw_pointer value`), `BUG:` (≤ 3.1x invalid
// position) and `, pos` (mainline `invalid position: …, pos =`). Short needles whose first
// byte is rare keep Buffer.indexOf at memchr speed (longer needles measured 3–8x slower).
const TRIGGERS = ['XRUN', 'xrun', 'PCM:', 'Unexp', 'BUG:', ', pos'].map((s) => Buffer.from(s));
// 64 KiB: no kernel line is longer (printk limit 1 KiB); a 10 MB "line" is not a log line.
const MAX_LINE_BYTES = 65536;
// Progress is worth printing only for inputs that take a while.
const PROGRESS_MIN_BYTES = 32 * 1024 * 1024;
// A bundle is small; refuse to buffer more than this looking for one.
const MAX_JSON_PEEK = 64 * 1024 * 1024;

function checkInput(path: string): number | undefined {
  try {
    const st = statSync(path);
    if (st.isDirectory()) {
      throw new XrunhuntError('input', `${path} is a directory, expected a kernel log file`, {
        hint: `pass the log files inside it, e.g. xrunhunt analyze ${path.replace(/\/$/, '')}/*.log`,
      });
    }
    return st.isFile() ? st.size : undefined;
  } catch (err) {
    if (err instanceof XrunhuntError) throw err;
    const code = errnoCode(err);
    if (code === 'ENOENT') {
      throw new XrunhuntError('not-found', `cannot read ${path}: no such file`, {
        hint: 'check the path; use - to read the log from standard input (dmesg | xrunhunt analyze -)',
      });
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new XrunhuntError('permission', `cannot read ${path}: permission denied`, {
        hint: 'run as a user that can read it (kern.log is often root/adm only), or pipe it: sudo cat FILE | xrunhunt analyze -',
      });
    }
    throw new XrunhuntError('input', `cannot read ${path}: ${String((err as Error).message)}`);
  }
}

/** Feeds one byte stream into the analyzer, line by line, with the idle fast path. */
async function feedStream(
  stream: AsyncIterable<Buffer>,
  a: LogAnalyzer,
  label: string,
  onBytes: (n: number) => void,
  signal: AbortSignal | undefined,
): Promise<{ bytes: number; binary: boolean; badUtf8: boolean; longLines: number }> {
  let carry: Buffer | null = null;
  let discarding = false;
  let bytes = 0;
  let binary = false;
  let badUtf8 = false;
  let longLines = 0;
  const next = new Array<number>(TRIGGERS.length).fill(-1);

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
    next.fill(-1);
    const len = buf.length;
    while (pos < len) {
      if (a.idle()) {
        // Find the earliest trigger at or after pos.
        let best = -1;
        for (let i = 0; i < TRIGGERS.length; i++) {
          let n = next[i]!;
          if (n !== -2 && n < pos) {
            n = buf.indexOf(TRIGGERS[i]!, pos);
            next[i] = n < 0 ? -2 : n;
          }
          if (n >= 0 && (best < 0 || n < best)) best = n;
        }
        const lineStart = best < 0 ? -1 : buf.lastIndexOf(10, best) + 1;
        const target = best < 0 ? len : Math.max(pos, lineStart);
        // Count and skip the complete lines between pos and target (indexOf is memchr-fast).
        let skipped = 0;
        let p = pos;
        for (;;) {
          const nl = buf.indexOf(10, p);
          if (nl < 0 || nl >= target) break;
          skipped++;
          p = nl + 1;
        }
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
  }
  if (carry && carry.length > 0) pushLine(carry, 0, carry.length);
  void label;
  return { bytes, binary, badUtf8, longLines };
}

// 4 MiB reads: few iterations, and the buffer is reused (no garbage per chunk).
const READ_BYTES = 4 * 1024 * 1024;

/** Reads a regular file with one reused buffer; each chunk is consumed before the next read. */
async function* readFileChunks(path: string): AsyncGenerator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(READ_BYTES);
    for (;;) {
      const n = readSync(fd, buf, 0, READ_BYTES, null);
      if (n <= 0) return;
      yield buf.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Whether a file starts with the gzip magic bytes (1f 8b). */
function fileIsGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

async function* withGunzip(
  source: AsyncIterable<Buffer>,
  onError: (err: Error) => void,
): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const head = first.value;
  const rest = async function* (): AsyncGenerator<Buffer> {
    yield head;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  };
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    const gunzip = createGunzip();
    const feeder = (async () => {
      try {
        for await (const c of rest()) {
          if (!gunzip.write(c)) await new Promise((r) => gunzip.once('drain', r));
        }
        gunzip.end();
      } catch (err) {
        gunzip.destroy(err as Error);
      }
    })();
    try {
      for await (const c of gunzip as AsyncIterable<Buffer>) yield c;
    } catch (err) {
      onError(err as Error);
    }
    await feeder.catch(() => undefined);
    return;
  }
  yield* rest();
}

async function* peekJson(
  source: AsyncIterable<Buffer>,
  onJson: (text: string) => boolean,
): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const head = first.value;
  let i = 0;
  while (i < head.length && (head[i] === 32 || head[i] === 10 || head[i] === 13 || head[i] === 9))
    i++;
  if (head[i] === 0x7b /* { */) {
    // Copies: file chunks come from one reused read buffer.
    const parts: Buffer[] = [Buffer.from(head)];
    let size = head.length;
    let r = await it.next();
    while (!r.done && size < MAX_JSON_PEEK) {
      parts.push(Buffer.from(r.value));
      size += r.value.length;
      r = await it.next();
    }
    if (r.done && onJson(Buffer.concat(parts).toString('utf8'))) return;
    yield* parts;
    if (!r.done) yield r.value;
  } else yield head;
  for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
}

/** Analyzes files (or '-' for stdin); gzip by magic bytes; several inputs get `source` on events. */
export async function analyzeFiles(
  inputs: string[] | '-',
  io: AnalyzeFilesIo,
  options: AnalyzeFilesOptions = {},
): Promise<AnalysisResult> {
  const list = inputs === '-' ? ['-'] : inputs.length === 0 ? ['-'] : inputs;
  const sizes = list.map((p) => (p === '-' ? undefined : checkInput(p)));
  const multi = list.length > 1;
  const a = createLogAnalyzer(options);
  const extra: XrunEvent[] = [];
  const totalKnown = sizes.reduce<number>((s, n) => s + (n ?? 0), 0);
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

  for (let idx = 0; idx < list.length; idx++) {
    const path = list[idx]!;
    const label = path === '-' ? 'standard input' : path;
    const source = multi ? (path === '-' ? '-' : basename(path)) : undefined;
    a.startSource(source);
    let raw: AsyncIterable<Buffer>;
    if (path === '-') raw = io.stdin as AsyncIterable<Buffer>;
    else if (sizes[idx] !== undefined && !fileIsGzip(path)) raw = readFileChunks(path);
    else raw = createReadStream(path, { highWaterMark: 1 << 20 });
    let gzipError: Error | undefined;
    let bundleUsed = false;
    const unzipped = withGunzip(raw, (err) => {
      gzipError = err;
    });
    const stream = options.bundleHandler
      ? peekJson(unzipped, (text) => {
          let doc: unknown;
          try {
            doc = JSON.parse(text);
          } catch {
            return false;
          }
          if (typeof doc !== 'object' || doc === null || !('formatVersion' in doc)) return false;
          const evs = options.bundleHandler!(text, source ?? label);
          if (!evs) return false;
          extra.push(...evs);
          bundleUsed = true;
          return true;
        })
      : unzipped;
    let stats;
    try {
      stats = await feedStream(stream, a, label, onBytes, io.signal);
    } catch (err) {
      if (err instanceof XrunhuntError) throw err;
      const code = errnoCode(err);
      if (code === 'EISDIR') {
        throw new XrunhuntError('input', `${label} is a directory, expected a kernel log file`);
      }
      throw new XrunhuntError('input', `cannot read ${label}: ${(err as Error).message}`);
    }
    if (gzipError) {
      a.warn(
        `${label}: the gzip data is truncated or corrupt (${gzipError.message}); analysed what could be decompressed`,
      );
    }
    if (bundleUsed) continue;
    if (stats.bytes === 0) a.warn(`${label} is empty`);
    if (stats.binary)
      a.warn(`${label} contains binary data (NUL bytes): is it really a text kernel log?`);
    if (stats.badUtf8)
      a.warn(`${label} contains bytes that are not valid UTF-8; they were replaced with U+FFFD`);
    if (stats.longLines > 0) {
      a.warn(
        `${label}: ${stats.longLines} line(s) longer than ${MAX_LINE_BYTES} bytes were truncated`,
      );
    }
  }
  if (showProgress) io.stderr!.write('\r\u001b[K');
  const result = a.finish();
  if (extra.length > 0) {
    const { rankOffenders, summarize } = await import('./rank.js');
    result.events = [...extra, ...result.events];
    result.offenders = rankOffenders(result.events);
    result.summary = summarize(result.events, result.offenders, result.summary.lines);
  }
  return result;
}
