// Live capture from /dev/kmsg. Measured facts this follows (platform-facts "Reading
// /dev/kmsg from Node"): open O_RDONLY|O_NONBLOCK and poll on EAGAIN (a blocking read
// parks a libuv thread and Node 20 then hangs at exit); each read returns exactly one
// record; EPIPE means the kernel overwrote records we had not read yet. Sequence numbers
// are contiguous, so any gap is "N kernel messages lost".
import { closeSync, constants, openSync, promises as fsp, readSync, writeSync } from 'node:fs';
import { errnoCode, errorMessage } from '../errors.js';
import { measureClockByMarker } from './clock-marker.js';
import type { ClockOffset, KernelCaptureSource } from './source-contract.js';
import { LineQueue } from './source-queue.js';

/** How long to wait after EAGAIN before reading again: short enough that a dump is seen
 * within a frame of a 10 ms period, long enough that an idle poll costs ~nothing. */
const POLL_MS = 10;
/** A kmsg record is at most ~1 KB of text plus its dictionary; a smaller buffer gets EINVAL. */
const RECORD_BUFFER_BYTES = 16 * 1024;
/** How long measureClockOffset waits to see its own marker come back. */
const MARKER_TIMEOUT_MS = 2000;
/** Caught up this long while draining without seeing the stop marker: it is not coming. */
const MARKER_WAIT_NS = BigInt(MARKER_TIMEOUT_MS) * 1_000_000n;
/** Records read back to back before yielding to the event loop, so the consumer (the
 * analyzer) and timers run during a flood of dumps (~40 records per XRUN dump). */
const RECORDS_PER_TURN = 256;
/** At close, read on until the stop marker comes back, but no longer than this (ms). Under a
 * dump flood the reader falls far behind the kernel (measured in the lab under TCG: 21 s behind
 * after 27 s); the backlog is at most the ring buffer (8 MB in the lab), which took 10 s to
 * read there at load 12. The old limit of 20 s cut such a drain short: kernel.log ended in the
 * middle of a dump and watch counted 43 of 562 XRUNs. This is only a safety net now. */
const DRAIN_LIMIT_MS = 180_000;

// A rejected promise carrying what a synchronous fs call threw (always an Error).
const rejectWith = (err: unknown): Promise<never> =>
  Promise.reject(err instanceof Error ? err : new Error(String(err)));

/** The fields of a kmsg record prefix `PRI,SEQ,USEC,FLAGS;`. */
export interface KmsgHead {
  priority: number;
  seq: number;
  usec: number;
}

/** Reads the `PRI,SEQ,USEC,FLAGS;` prefix of a raw kmsg record (null: not a record). */
export function parseKmsgHead(record: string): KmsgHead | null {
  const m = /^(\d+),(\d+),(\d+),[^;]*;/.exec(record);
  if (!m) return null;
  return { priority: Number(m[1]), seq: Number(m[2]), usec: Number(m[3]) };
}

/** Counts lost records from sequence gaps (pure); the first record only sets the base. */
export function createSeqGapCounter(): { observe(seq: number): number; readonly lost: number } {
  let last: number | null = null;
  let lost = 0;
  return {
    observe(seq: number): number {
      let gap = 0;
      if (last !== null && seq > last + 1) gap = seq - last - 1;
      lost += gap;
      if (last === null || seq > last) last = seq;
      return gap;
    },
    get lost() {
      return lost;
    },
  };
}

/** The device operations the reader needs; the default is the real /dev/kmsg. */
export interface KmsgDevice {
  /** Reads one record; throws Node errors with code EAGAIN / EPIPE like the real device. */
  read(): Promise<string>;
  /**
   * Writes one line to the kernel log (for the clock marker). The real device writes with one
   * synchronous write(2) on a descriptor opened beforehand, so a caller's clock reads around
   * the call bracket that system call (where printk stamps the record) and nothing else.
   */
  write(text: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the real /dev/kmsg (non-blocking read side; write side opened on demand). Reads are
 * synchronous on the O_NONBLOCK descriptor: they never block (EAGAIN when caught up), and
 * avoid a thread-pool round trip per record, which under a dump flood was slower than the
 * kernel's printing (the reader fell seconds behind and a session saw only its first dumps).
 */
export async function openKmsgDevice(path = '/dev/kmsg'): Promise<KmsgDevice> {
  const reader = await fsp.open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const buf = Buffer.alloc(RECORD_BUFFER_BYTES);
  let writer: number | null = null;
  return {
    read() {
      try {
        const bytesRead = readSync(reader.fd, buf, 0, buf.length, null);
        return Promise.resolve(buf.toString('utf8', 0, bytesRead));
      } catch (err) {
        return rejectWith(err);
      }
    },
    write(text: string) {
      try {
        // Opened on the first marker, outside the bracket of every later one.
        writer ??= openSync(path, 'w');
        writeSync(writer, text.endsWith('\n') ? text : text + '\n');
        return Promise.resolve();
      } catch (err) {
        return rejectWith(err);
      }
    },
    async close() {
      if (writer !== null) closeSync(writer);
      writer = null;
      await reader.close();
    },
  };
}

export interface KmsgSourceOptions {
  device: KmsgDevice;
  /** CLOCK_MONOTONIC in ns (injected; default process.hrtime.bigint). */
  now?: () => bigint;
  /** Waits ms (injected so tests need no real sleeps). */
  sleep?: (ms: number) => Promise<void>;
  /** How long close() may read on to reach the stop marker (default DRAIN_LIMIT_MS). */
  drainLimitMs?: number;
}

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A kmsg capture: skips everything already in the buffer, then streams new records. */
export function createKmsgSource(options: KmsgSourceOptions): KernelCaptureSource {
  const { device } = options;
  const now = options.now ?? (() => process.hrtime.bigint());
  const sleep = options.sleep ?? realSleep;
  const drainLimitMs = options.drainLimitMs ?? DRAIN_LIMIT_MS;
  const queue = new LineQueue();
  const gaps = createSeqGapCounter();
  const warnings: string[] = [];
  let closed = false;
  // Set by close(): read on until caught up (EAGAIN) or DRAIN_LIMIT_MS, then stop.
  let drainUntilNs: bigint | null = null;
  // Written by close(): every record before it was printed before the stop.
  let stopMarker: string | null = null;
  let stopMarkerSeen = false;
  // Since when reads have returned EAGAIN without a record in between (null: a record came).
  let againSinceNs: bigint | null = null;
  let loop: Promise<void> | null = null;
  let eagainLost = 0;
  const markerWaiters = new Map<string, (usec: number) => void>();

  const readOne = async (): Promise<string | 'again' | 'lost'> => {
    try {
      return await device.read();
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 'again';
      if (code === 'EPIPE') return 'lost';
      throw err;
    }
  };

  const handle = (record: string): void => {
    if (stopMarker !== null && record.includes(stopMarker)) {
      stopMarkerSeen = true;
      return;
    }
    const head = parseKmsgHead(record);
    if (head) {
      gaps.observe(head.seq);
      for (const [marker, resolve] of markerWaiters) {
        if (record.includes(marker)) resolve(head.usec);
      }
    }
    const readNs = Number(now());
    for (const text of record.replace(/\n$/, '').split('\n')) queue.push({ text, readNs });
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    try {
      let inTurn = 0;
      while (!closed && !stopMarkerSeen) {
        if (drainUntilNs !== null && now() >= drainUntilNs) {
          if (stopMarker !== null)
            warnings.push(
              `stopped reading the kernel log ${Math.round(drainLimitMs / 1000)} s after the stop, before reaching the records printed at the stop: the reader had fallen behind a flood of messages, so the last part of the run is missing from kernel.log and its events`,
            );
          break;
        }
        const r = await readOne();
        if (r === 'again') {
          if (drainUntilNs !== null && stopMarker === null) break;
          // Draining with a stop marker: EAGAIN means "not yet", unless it lasts — the kernel
          // drops writes silently with printk.devkmsg=off, so the marker may never come.
          againSinceNs ??= now();
          if (drainUntilNs !== null && now() - againSinceNs >= MARKER_WAIT_NS) break;
          if (drainUntilNs === null && signal.aborted) break;
          inTurn = 0;
          await sleep(POLL_MS);
          continue;
        }
        againSinceNs = null;
        if (r === 'lost') eagainLost++;
        else handle(r);
        if (++inTurn >= RECORDS_PER_TURN) {
          inTurn = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    } catch (err) {
      warnings.push(`reading /dev/kmsg failed: ${errorMessage(err)}`);
    } finally {
      queue.end();
    }
  };

  return {
    name: 'kmsg',
    get lostMessages() {
      // A gap counts the exact number of records; EPIPE alone (no gap seen yet) counts one.
      return Math.max(gaps.lost, eagainLost > 0 && gaps.lost === 0 ? eagainLost : 0);
    },
    warnings,
    async start(signal: AbortSignal) {
      // Skip the backlog: read until EAGAIN, remembering only the last sequence number.
      for (;;) {
        const r = await readOne();
        if (r === 'again') break;
        if (r === 'lost') continue;
        const head = parseKmsgHead(r);
        if (head) gaps.observe(head.seq);
      }
      signal.addEventListener('abort', () => void this.close(), { once: true });
      loop = run(signal);
    },
    async close() {
      if (drainUntilNs !== null || closed) {
        await loop;
        return;
      }
      // Drain what the kernel printed before the stop, then end: up to our own marker, which
      // the kernel logs after everything printed so far (without it: until caught up).
      drainUntilNs = now() + BigInt(drainLimitMs) * 1_000_000n;
      againSinceNs = null; // "caught up" counts from the stop on
      const marker = `xrunhunt: capture stop marker ${Number(now()).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      stopMarker = marker; // before the write: the reader may see it come back at once
      try {
        await device.write(marker);
      } catch {
        // /dev/kmsg not writable (not root): drain until caught up instead.
        stopMarker = null;
      }
      await loop;
      closed = true;
      queue.end();
      await device.close().catch(() => undefined);
    },
    async measureClockOffset(): Promise<ClockOffset | null> {
      const m = await measureClockByMarker({
        now,
        write: (marker) => device.write(marker),
        seen: (marker) =>
          new Promise<bigint>((resolve) =>
            markerWaiters.set(marker, (usec) => resolve(BigInt(usec) * 1000n)),
          ),
        forget: (marker) => markerWaiters.delete(marker),
        timeoutMs: MARKER_TIMEOUT_MS,
      });
      if (m === null || !('failed' in m)) return m;
      warnings.push(
        `could not write a clock marker to /dev/kmsg (${errnoCode(m.failed) ?? String(m.failed)}); assuming the kernel log clock equals CLOCK_MONOTONIC`,
      );
      return null;
    },
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}
