// Progress of long work (aggregate over a folder of bundles): a pure formatter and a thin
// writer. On a terminal one line is redrawn in place ("\r", erase to end of line) at most
// every `redrawMs` and erased at the end; off a terminal a record is emitted every
// `recordEveryMs` (to the log, or a plain line), so a log collector sees the run advance.

export interface ProgressState {
  done: number;
  total: number;
  elapsedMs: number;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** "0:07", "12:30", "1:02:03": an ETA short enough for one terminal line. */
export function formatEta(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad2(m)}:${pad2(s % 60)}` : `${m}:${pad2(s % 60)}`;
}

/** Items per second so far, or null before there is a measurable time. */
export function progressRate(p: ProgressState): number | null {
  return p.elapsedMs > 0 ? (p.done * 1000) / p.elapsedMs : null;
}

/** The progress line: "ingest 1200/5000 bundles (24%), 310/s, ETA 0:12". Pure. */
export function formatProgress(p: ProgressState, what = 'bundles', verb = 'ingest'): string {
  const pct = p.total > 0 ? Math.floor((p.done * 100) / p.total) : 100;
  const rate = progressRate(p);
  const rateText = rate === null ? '–/s' : `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s`;
  const eta =
    rate === null || rate === 0 ? 'ETA –' : `ETA ${formatEta(((p.total - p.done) / rate) * 1000)}`;
  return `${verb} ${p.done}/${p.total} ${what} (${pct}%), ${rateText}, ${eta}`;
}

/** Where progress goes: a stream that may be a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  total: number;
  now?: () => number;
  redrawMs?: number;
  recordEveryMs?: number;
  /** Off a terminal: receives the state every recordEveryMs (and at the end). */
  record?: (p: ProgressState, line: string) => void;
}

export interface ProgressReporter {
  /** Sets how many items are done; draws or records when it is time. */
  update(done: number): void;
  /** Final record (off a terminal) or erases the line (on one). */
  finish(): void;
}

/** Shows progress on `stream`; exists so long commands show count, rate and ETA alike. */
export function createProgressReporter(
  stream: ProgressStream,
  options: ProgressOptions,
): ProgressReporter {
  const now = options.now ?? Date.now;
  const started = now();
  const tty = stream.isTTY === true;
  const every = tty ? (options.redrawMs ?? 100) : (options.recordEveryMs ?? 5000);
  let last = started;
  let done = 0;
  let drawn = false;
  const state = (): ProgressState => ({ done, total: options.total, elapsedMs: now() - started });
  const emit = (): void => {
    const s = state();
    const line = formatProgress(s);
    if (tty) {
      stream.write(`\r${line}\x1b[K`);
      drawn = true;
    } else if (options.record) options.record(s, line);
    else stream.write(`${new Date().toISOString()} ${line}\n`);
  };
  return {
    update(n) {
      done = n;
      const t = now();
      if (t - last >= every) {
        last = t;
        emit();
      }
    },
    finish() {
      if (tty) {
        if (drawn) stream.write('\r\x1b[K');
      } else if (now() - started >= every) emit();
    },
  };
}
