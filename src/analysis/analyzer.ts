// The streaming analyzer: lines in (any mixture of dmesg, kmsg, journal, syslog, mail
// quotes, ftrace), events out. Keeps only open records (one per printk caller id), so
// memory stays bounded on multi-gigabyte logs. Pure: no fs, no clock.
import { parseLogLine, type LogLine } from '../kernel/line-anatomy.js';
import { classifyStackLine, type StackToken } from '../kernel/stack-line.js';
import { classifyStack, type StackItem } from './classify.js';
import { ownStackFrames, parseDetectionEvidence, recogniseDetection } from './detection.js';
import {
  isForeignHeader,
  isWholePrefix,
  LOGGER_BREAK_RE,
  matchHeaderText,
  mayBeAlsaHeader,
  parseFtraceLine,
  type AlsaHeader,
} from './headers.js';
import { rankOffenders, summarize } from './rank.js';
import { loadRules, type RuleSet } from './rules.js';
import type { AnalysisResult, EventKind, XrunEvent } from './types.js';

export interface AnalyzerOptions {
  rules?: RuleSet;
  /** Attached to every event (file name when several inputs are analysed). */
  source?: string;
  /** Keep frames for at most this many events; later events keep only their offender (bounded memory). */
  maxEventsWithFrames?: number;
  /** Lines longer than this many characters are truncated with a warning. */
  maxLineLength?: number;
  /** Frames kept per record (deeper frames are dropped: no real dump is this deep). */
  maxFramesPerRecord?: number;
}

export interface LogAnalyzer {
  /** Feeds one physical line (without its newline). */
  push(line: string): void;
  /** True when no record is open: lines without header keywords cannot matter (see skipLines). */
  idle(): boolean;
  /** Advances the line counter over lines the caller proved irrelevant while idle(). */
  skipLines(count: number): void;
  /** Starts numbering again at 1 for a new input (records still open are closed first). */
  startSource(source: string | undefined): void;
  /** Adds a warning to the result (IO shells report truncated lines, bad bytes …). */
  warn(message: string): void;
  /** Lines seen so far (in the current source). */
  readonly lineNumber: number;
  /** Closes open records and returns the ranked result. */
  finish(): AnalysisResult;
}

interface OpenRecord {
  kind: EventKind;
  pcm: string | null;
  line: number;
  time: number | undefined;
  source: string | undefined;
  header: string;
  items: StackItem[];
  frames: number;
  sawCpuLine: boolean;
  incomplete: boolean;
  ftrace: boolean;
  lastActivity: number;
  inModules: boolean;
  truncatedFrames: boolean;
  /** Catalogue entry of the header. */
  entry: string;
  /** A line that is not a stack line on its own: perhaps the first part of a wrapped frame. */
  fragment: string | null;
  fragmentLines: number;
  /** The dump's `CPU: N PID: N Comm: …` line (the task that printed it). */
  taskLine?: string;
  /** ftrace: the `<stack trace>` of this xrun line has not started yet (other events first). */
  awaitingStack?: boolean;
}

interface Previous {
  key: string;
  body: string;
  line: number;
  /** Position among bodies (a physical line split at a logger's literal \\n holds several). */
  seq: number;
  ll: LogLine;
  /** This body started a header (it cannot also be the first part of the next one). */
  header: boolean;
}

/** The first part of a header wrapped at a space, waiting for its continuation. */
interface PendingHeader {
  text: string;
  line: number;
  ll: LogLine;
  parts: number;
  anchored: AlsaHeader | null;
}

// A header is reassembled from at most this many physical lines (a mailer wraps a 200-column
// hw-pointer line over three); frames from at most this many.
const MAX_HEADER_PARTS = 4;
const MAX_FRAME_PARTS = 3;
// `lib/x.c:12 [inline]` (syzkaller) or `(kernel/panic.c:673)` (decode_stacktrace.sh) alone on
// a line: the source location of the frame before it, wrapped.
const SOURCE_TAIL_RE =
  /^\s*(?:[\w./+-]+\.[chS]:\d+(?:\s+\[inline\])?|\((?:[^()]|\([^()]*\))*:\d+[^()]*\))\s*$/;

// No real dump has more frames than this (kernel stack depth); deeper input is garbage.
const DEFAULT_MAX_FRAMES = 512;
// An ftrace xrun line waits this many lines for its own `<stack trace>` (a TCG guest at load
// 10 recorded up to 20 lines of the same CPU's interrupt and other CPUs' events in between).
const FTRACE_STACK_WAIT = 64;
// A record with no contribution for this many lines is over (CPUs interleave, but one dump is contiguous-ish).
const STALE_LINES = 400;
// Caps open records (one per caller id): a log cannot have more concurrent dumps than CPUs+tasks printing.
const MAX_OPEN = 256;
const LOGGER_BREAK_SPLIT = new RegExp(LOGGER_BREAK_RE.source, 'g');
// 64 KiB: far longer than any kernel line (printk's limit is 1 KiB).
const DEFAULT_MAX_LINE = 65536;

/** Creates a streaming analyzer; push lines, then finish(). */
export function createLogAnalyzer(options: AnalyzerOptions = {}): LogAnalyzer {
  const rules = options.rules ?? loadRules();
  const maxWithFrames = options.maxEventsWithFrames ?? 20000;
  const maxLine = options.maxLineLength ?? DEFAULT_MAX_LINE;
  const maxFrames = options.maxFramesPerRecord ?? DEFAULT_MAX_FRAMES;
  const events: XrunEvent[] = [];
  const warnings: string[] = [];
  const open = new Map<string, OpenRecord>();
  const pending = new Map<string, PendingHeader>();
  let lastKey = '';
  let seq = 0;
  let headerAt = -1;
  // The two lines before this one (a header wrapped inside its prefix starts there).
  let previous: [Previous | undefined, Previous | undefined] = [undefined, undefined];
  let source = options.source;
  let lineNo = 0;
  let totalLines = 0;
  let afterKmsg = false;
  // ftrace records (one per `comm-pid [cpu]`) and the one whose `=>` lines are being read.
  const ftraceOpen = new Set<string>();
  let stackKey: string | null = null;
  let droppedFrames = 0;
  let longLines = 0;

  const close = (key: string): void => {
    const r = open.get(key);
    if (!r) return;
    open.delete(key);
    ftraceOpen.delete(key);
    const c = classifyStack(r.items, rules, r.ftrace);
    const d = recogniseDetection(c, rules, parseDetectionEvidence(r.header, r.taskLine));
    const ev: XrunEvent = {
      kind: r.kind,
      pcm: r.pcm,
      line: r.line,
      header: r.header,
      offender: d.offender ?? c.offender,
      frames: d.offender ? ownStackFrames(c.frames, d.detection.context) : c.frames,
    };
    if (r.time !== undefined) ev.time = r.time;
    if (r.source !== undefined) ev.source = r.source;
    if (c.offenderIndex !== undefined && !d.offender) ev.offenderIndex = c.offenderIndex;
    ev.detection = d.detection;
    if (events.length >= maxWithFrames) {
      ev.frames = [];
      delete ev.offenderIndex;
      droppedFrames++;
    }
    events.push(ev);
  };

  const closeAll = (): void => {
    for (const key of [...pending.keys()]) flushPending(key);
    for (const key of [...open.keys()]) close(key);
  };

  /** A wrap whose continuation never came: anchored parts are still events (cut off). */
  const flushPending = (key: string): void => {
    const p = pending.get(key);
    if (!p) return;
    pending.delete(key);
    if (p.anchored) openRecord(key, p.anchored, p.ll, p.text, p.line);
  };

  const openRecord = (
    key: string,
    header: AlsaHeader,
    ll: LogLine,
    text: string,
    line = lineNo,
    ftrace = false,
  ): void => {
    close(key);
    if (open.size >= MAX_OPEN) {
      const oldest = open.keys().next().value;
      if (oldest !== undefined) close(oldest);
    }
    open.set(key, {
      kind: header.kind,
      pcm: header.pcm,
      line,
      time: ll.time,
      source,
      header: text.trim().replace(/\s+/g, ' '),
      items: [],
      frames: 0,
      sawCpuLine: false,
      incomplete: header.incomplete,
      ftrace,
      lastActivity: line,
      inModules: false,
      truncatedFrames: false,
      entry: header.entry,
      fragment: null,
      fragmentLines: 0,
    });
  };

  const addTokens = (r: OpenRecord, tokens: StackToken[]): void => {
    for (const t of tokens) {
      if (t.type === 'marker') {
        r.items.push({ type: 'marker', marker: t.marker });
        continue;
      }
      if (t.armCallee) {
        // ARM `(callee) from (caller+off)`: the callee is the previous line's caller.
        const prev = r.items[r.items.length - 1];
        if (prev && prev.type === 'frame' && prev.frame.function === t.frame.function) continue;
      }
      if (r.frames >= maxFrames) {
        r.truncatedFrames = true;
        continue;
      }
      r.frames++;
      r.items.push({ type: 'frame', frame: t.frame });
    }
  };

  const isPrinterStart = (tokens: StackToken[]): boolean => {
    const first = tokens.find((t) => t.type === 'frame');
    return (
      first !== undefined &&
      first.type === 'frame' &&
      rules.printer.matchFunction(first.frame.function)
    );
  };

  const lastFrameIsPrinter = (r: OpenRecord): boolean => {
    for (let i = r.items.length - 1; i >= 0; i--) {
      const it = r.items[i]!;
      if (it.type === 'frame') return rules.printer.matchFunction(it.frame.function);
    }
    return false;
  };

  /** The body `back` bodies before this one, on the line before (or the same physical line). */
  const adjacent = (p: Previous, back: number): boolean =>
    seq - p.seq === back && lineNo - p.line <= back && lineNo - p.line >= 0;

  /** Header matching with reassembly of wrapped headers; true when the line was consumed. */
  const headerStep = (body: string, ll: LogLine, lineKey: string, bare: boolean): boolean => {
    let key = lineKey;
    // A bare line (no prefix at all) may continue the line before it, whatever its caller id.
    const sameKey = (p: Previous): boolean => p.key === key || bare;
    const p = pending.get(key);
    if (p) {
      pending.delete(key);
      const joined = `${p.text.trimEnd()} ${body.trim()}`;
      const m = matchHeaderText(joined);
      // When the whole message is on this line, the held part must be a printk prefix, or
      // the two lines were never one (`Unexpected` then `XRUN: pcmC0D0p`).
      const inHeld = (h: AlsaHeader): boolean =>
        h.prefix.length < p.text.trimEnd().length || isWholePrefix(h.prefix);
      if (m && m.state === 'complete' && inHeld(m.header)) {
        headerAt = seq;
        openRecord(key, m.header, p.ll, joined, p.line);
        return true;
      }
      if (m && m.state === 'partial' && p.parts + 1 < MAX_HEADER_PARTS) {
        pending.set(key, {
          ...p,
          text: joined,
          parts: p.parts + 1,
          anchored: m.anchored ?? p.anchored,
        });
        return true;
      }
      // Not a continuation: a cut-off anchored header is still an event; this line is read anew.
      if (p.anchored) openRecord(key, p.anchored, p.ll, p.text, p.line);
    }
    const m = matchHeaderText(body);
    const p1 = previous[0];
    if (
      (!m || (m.state === 'partial' && !m.anchored)) &&
      p1 &&
      sameKey(p1) &&
      adjacent(p1, 1) &&
      !p1.header &&
      (m !== null || mayBeAlsaHeader(body))
    ) {
      // A message cut where no part says what it is yet (`xrun:` ⏎ `[0]occured XRUN!`).
      const joined = `${p1.body.trim()} ${body.trim()}`;
      const jm = matchHeaderText(joined);
      if (jm && jm.state === 'complete' && jm.header.prefix.length < p1.body.trim().length) {
        headerAt = seq;
        key = p1.key;
        openRecord(key, jm.header, p1.ll, joined, p1.line);
        return true;
      }
      if (jm && jm.state === 'partial' && m === null) {
        key = p1.key;
        close(key);
        pending.set(key, {
          text: joined,
          line: p1.line,
          ll: p1.ll,
          parts: 2,
          anchored: jm.anchored,
        });
        return true;
      }
    }
    if (!m) return false;
    if (m.state === 'complete') {
      headerAt = seq;
      // The header wrapped inside its printk prefix (`snd_hda_intel` ⏎ `0000:00:1b.0: XRUN: …`,
      // `ALSA` ⏎ `sound/core/pcm_lib.c:169: XRUN: …`): it starts one or two lines before.
      const [p1, p2] = previous;
      const before = (p: Previous | undefined, back: number): boolean =>
        p !== undefined && sameKey(p) && adjacent(p, back) && !p.header;
      if (before(p1, 1)) {
        const one = `${p1!.body.trim()} ${m.header.prefix.trim()}`;
        if (!isWholePrefix(m.header.prefix) && isWholePrefix(`${one} `)) {
          key = p1!.key;
          openRecord(key, m.header, p1!.ll, `${p1!.body.trim()} ${body.trim()}`, p1!.line);
          return true;
        }
        const two = `${p2?.body.trim() ?? ''} ${one}`;
        if (before(p2, 2) && !isWholePrefix(m.header.prefix) && isWholePrefix(`${two} `)) {
          const text = `${p2!.body.trim()} ${p1!.body.trim()} ${body.trim()}`;
          key = p2!.key;
          openRecord(key, m.header, p2!.ll, text, p2!.line);
          return true;
        }
      }
      openRecord(key, m.header, ll, body);
      return true;
    }
    if (m.state === 'line') {
      close(key);
      return true;
    }
    // The first part of a wrapped header. Inside a stack it must not be a stack line.
    const r = open.get(key);
    if (r && m.anchored === null && classifyStackLine(body).kind !== 'other') return false;
    close(key);
    // Wrapped inside the prefix too (`snd_hda_intel` ⏎ `0000:00:1b.0: XRUN:` ⏎ `pcmC0D0p:0`).
    if (p1 && sameKey(p1) && adjacent(p1, 1) && !p1.header) {
      key = p1.key;
      const pre = `${p1.body.trim()} ${m.prefix.trim()} `;
      if (!isWholePrefix(m.prefix) && isWholePrefix(pre)) {
        const text = `${p1.body.trim()} ${body.trim()}`;
        pending.set(key, { text, line: p1.line, ll: p1.ll, parts: 2, anchored: m.anchored });
        return true;
      }
    }
    pending.set(key, { text: body, line: lineNo, ll, parts: 1, anchored: m.anchored });
    return true;
  };

  const processBody = (body: string, ll: LogLine): void => {
    // A line without any prefix in a log that has caller ids continues a wrapped header or
    // frame of the line before it (only then: the IO fast path must see the same keys).
    const bare = ll.caller === undefined && ll.time === undefined && ll.transport === 'none';
    const waiting = pending.has(lastKey) || (open.get(lastKey)?.fragment ?? null) !== null;
    const key = ll.caller ?? (bare && waiting ? lastKey : '');
    lastKey = key;
    try {
      processKeyed(body, ll, key, bare);
    } finally {
      previous = [{ key, body, line: lineNo, seq, ll, header: headerAt === seq }, previous[0]];
      seq++;
    }
  };

  const processKeyed = (body: string, ll: LogLine, key: string, bare: boolean): void => {
    // ftrace / trace_pipe text.
    const ft =
      body.charCodeAt(0) === 32 || (body.charCodeAt(0) >= 48 && body.charCodeAt(0) <= 57)
        ? parseFtraceLine(body)
        : null;
    if (ft) {
      // One record per `comm-pid [cpu]`: the stack of an xrun line is the `<stack trace>` its
      // own task and CPU record, and under load an interrupt's events on that CPU, another
      // CPU's events (or another CPU's xrun) can come in between.
      const k = `ftrace\u0000${ft.who ?? ''}`;
      // Any ftrace line ends the `=>` lines before it: records whose stack was read are done.
      stackKey = null;
      for (const fk of [...ftraceOpen]) {
        const r = open.get(fk);
        if (!r?.awaitingStack || lineNo - r.line >= FTRACE_STACK_WAIT) close(fk);
      }
      if (ft.kind === 'xrun') {
        // trace_pipe lines carry their time in the ftrace column, not in a printk prefix.
        openRecord(
          k,
          { kind: 'xrun', pcm: ft.pcm, incomplete: false, entry: 'ftrace-xrun', prefix: '' },
          { ...ll, time: ll.time ?? ft.time },
          body,
          lineNo,
          true,
        );
        const r = open.get(k);
        if (r) {
          r.awaitingStack = true;
          ftraceOpen.add(k);
        }
      } else if (ft.kind === 'stack-start') {
        const r = open.get(k);
        // A stack of another event (a stacktrace trigger elsewhere) belongs to no record.
        stackKey = r?.awaitingStack ? k : null;
        if (r) r.awaitingStack = false;
      }
      return;
    }
    if (headerStep(body, ll, key, bare)) return;
    const trimmed = body.trimStart();
    const ftraceFrame = trimmed.startsWith('=>');
    const rkey = ftraceFrame ? stackKey : key;
    if (rkey === null) return;
    const r = open.get(rkey);
    if (!r) return;
    if (isForeignHeader(body)) {
      close(rkey);
      return;
    }
    let text = body;
    if (r.fragment !== null) {
      // The held line and this one may be one frame wrapped at a space.
      const joined = `${r.fragment.trimEnd()} ${trimmed}`;
      const jk = classifyStackLine(joined).kind;
      const held = r.fragment;
      r.fragment = null;
      if (jk !== 'other' && jk !== 'partial' && jk !== 'empty') text = joined;
      else if (r.fragmentLines + 1 < MAX_FRAME_PARTS && joined.length < 400) {
        r.fragment = joined;
        r.fragmentLines++;
        return;
      } else {
        // It was not a frame: the held line ended the stack, and this line is read anew.
        if (classifyStackLine(held).kind === 'other') {
          close(rkey);
          processBody(body, ll);
          return;
        }
      }
    }
    stackStep(r, rkey, text);
  };

  const stackStep = (r: OpenRecord, rkey: string, body: string): void => {
    const trimmed = body.trimStart();
    const sl = classifyStackLine(body);
    switch (sl.kind) {
      case 'frames':
        if (r.frames > 0 && isPrinterStart(sl.tokens) && !lastFrameIsPrinter(r)) {
          // A second dump_stack() without a header: never attach it to this record.
          close(rkey);
          return;
        }
        addTokens(r, sl.tokens);
        r.inModules = false;
        r.lastActivity = lineNo;
        return;
      case 'regs':
        r.items.push(
          sl.frame
            ? { type: 'regs', mode: sl.mode, frame: sl.frame }
            : { type: 'regs', mode: sl.mode },
        );
        r.lastActivity = lineNo;
        return;
      case 'context':
        if (sl.cpuLine) {
          if (r.sawCpuLine || r.frames > 0) {
            close(rkey);
            return;
          }
          r.sawCpuLine = true;
          r.taskLine = trimmed;
        }
        r.inModules = trimmed.startsWith('Modules linked in:');
        r.lastActivity = lineNo;
        return;
      case 'module-tail': {
        const last = r.items[r.items.length - 1];
        if (last && last.type === 'frame') {
          // syzkaller's `[inline]` wrapped onto its own line marks the frame, it is no module.
          if (sl.module === 'inline') last.frame.inline = true;
          else if (last.frame.module === undefined) last.frame.module = sl.module;
        }
        r.lastActivity = lineNo;
        return;
      }
      case 'partial':
        r.fragment = body;
        r.fragmentLines = 1;
        r.lastActivity = lineNo;
        return;
      case 'skip':
        r.lastActivity = lineNo;
        return;
      case 'empty':
        return;
      case 'other':
        if (r.inModules && /^\s+[\w\-()[\],\s]+$/.test(body)) return;
        if (/^\s*\(\d+\)\s*$/.test(body)) {
          // The `(44)` stack-usage column of -rt i386 frames, wrapped onto its own line.
          r.lastActivity = lineNo;
          return;
        }
        if (SOURCE_TAIL_RE.test(body)) {
          // The source location of the frame before, wrapped onto its own line.
          const last = r.items[r.items.length - 1];
          if (last && last.type === 'frame' && body.includes('[inline]')) last.frame.inline = true;
          r.lastActivity = lineNo;
          return;
        }
        // Perhaps the first part of a frame (or `Call Trace:`) wrapped at a space: held for
        // one more line, which decides.
        r.fragment = body;
        r.fragmentLines = 1;
        r.lastActivity = lineNo;
        return;
    }
  };

  const push = (raw: string): void => {
    lineNo++;
    totalLines++;
    let line = raw;
    if (line.length > maxLine) {
      longLines++;
      line = line.slice(0, maxLine);
    }
    const ll = parseLogLine(line, afterKmsg);
    afterKmsg = ll.transport === 'kmsg' || ll.transport === 'kmsg-dict';
    if (ll.transport === 'kmsg-dict' || ll.foreign) return;
    if ((lineNo & 63) === 0 && open.size > 0) {
      for (const [k, r] of open) if (lineNo - r.lastActivity > STALE_LINES) close(k);
    }
    if ((lineNo & 63) === 0 && pending.size > 0) {
      // A wrap whose caller never printed again: settle it, so the fast path can resume.
      for (const [k, p] of pending) if (lineNo - p.line > STALE_LINES) flushPending(k);
    }
    if (LOGGER_BREAK_RE.test(ll.body)) {
      for (const part of ll.body.split(LOGGER_BREAK_SPLIT)) processBody(part, ll);
      return;
    }
    processBody(ll.body, ll);
  };

  return {
    push,
    idle: () => open.size === 0 && pending.size === 0,
    skipLines(count: number) {
      lineNo += count;
      totalLines += count;
      afterKmsg = false;
    },
    startSource(next: string | undefined) {
      closeAll();
      source = next;
      lineNo = 0;
      afterKmsg = false;
    },
    warn(message: string) {
      if (warnings.length < 100 && !warnings.includes(message)) warnings.push(message);
    },
    get lineNumber() {
      return lineNo;
    },
    finish(): AnalysisResult {
      closeAll();
      if (longLines > 0) {
        warnings.push(`${longLines} line(s) longer than ${maxLine} characters were truncated`);
      }
      if (droppedFrames > 0) {
        warnings.push(
          `${droppedFrames} event(s) beyond the first ${maxWithFrames} are reported without their frames (memory bound)`,
        );
      }
      const offenders = rankOffenders(events);
      return { events, offenders, summary: summarize(events, offenders, totalLines), warnings };
    },
  };
}

/** Analyzes a whole text at once (tests, small inputs, bundle re-analysis). */
export function analyzeText(text: string, options: AnalyzerOptions = {}): AnalysisResult {
  const a = createLogAnalyzer(options);
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (const l of lines) a.push(l);
  return a.finish();
}
