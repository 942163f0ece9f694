// Record headers: the ALSA diagnostics of every era (kernel-log-formats §2) that start an
// event, the non-ALSA report headers whose stacks must not become events (§4.4), and the
// ftrace/trace_pipe lines of a kprobe on __snd_pcm_xrun or the snd_pcm:xrun tracepoint.
import { loadMessageCatalogue, type CompiledEntry } from './message-catalogue.js';
import type { EventKind } from './types.js';

export interface AlsaHeader {
  kind: EventKind;
  pcm: string | null;
  /** The message is cut off (a wrap whose continuation never came): an event all the same. */
  incomplete: boolean;
  /** The catalogue entry that matched (src/analysis/catalogue/pcm-messages.json). */
  entry: string;
  /** The text before the message (a printk helper's prefix: `ALSA file:line: `, `driver device: `). */
  prefix: string;
}

/** How a text relates to the catalogue of ALSA PCM diagnostics. */
export type HeaderTextMatch =
  /** A whole event header. */
  | { state: 'complete'; header: AlsaHeader }
  /** A whole catalogued line that is not an event (hwptr log, update traces, rate-limit notes). */
  | { state: 'line'; entry: string }
  /**
   * The first part of a message wrapped at a space; `anchored` when the part already says
   * which message it is (then it is an event even if the rest never comes).
   */
  | { state: 'partial'; anchored: AlsaHeader | null; prefix: string };

// Literal escapes loggers leave for a line break inside one record (rsyslog #012, kmsg \x0a,
// `\n` from JSON/exporters): wherever they fall they are a break, like a wrapped line.
export const LOGGER_BREAK_RE = /#012|\\x0a|\\012|\\n/;

/** Cheap pre-check: could this text be (the start of) a catalogued ALSA message at all? */
export function mayBeAlsaHeader(body: string): boolean {
  return loadMessageCatalogue().needleRe.test(body);
}

// The stream as printed: `pcmC0D0p` (≤ 2.6.29, from `pcmC%dD%d%c`) or `pcmC0D0p:0` (the debug name).
const PCM_RE = /pcmC\d+D\d+[pc](?::\d+)?/;

function headerFrom(c: CompiledEntry, m: RegExpExecArray, incomplete: boolean): AlsaHeader {
  const p = PCM_RE.exec(m[0]);
  const pcm = p ? p[0] : null;
  const lead = m[0].length > 0 && /[\s:]/.test(m[0][0]!) ? 1 : 0;
  const prefix = m.input.slice(0, m.index + lead);
  return { kind: c.entry.kind as EventKind, pcm, incomplete, entry: c.entry.id, prefix };
}

function isEventEntry(c: CompiledEntry): boolean {
  return c.entry.kind !== 'context' && c.entry.kind !== 'note';
}

/** Matches a text (one body, or wrapped parts joined by a space) against the catalogue. */
export function matchHeaderText(text: string): HeaderTextMatch | null {
  const t = text.trimEnd();
  if (t.length === 0 || t.length > 2048 || !mayBeAlsaHeader(t)) return null;
  const cat = loadMessageCatalogue();
  // The entry that explains the most text wins (`ALSA: PCM: …` of 3.15 over `PCM: …` of 2.6.34).
  let best: { c: CompiledEntry; m: RegExpExecArray } | undefined;
  for (const c of cat.entries) {
    const m = c.whole.exec(t);
    if (m && (best === undefined || m.index < best.m.index)) best = { c, m };
  }
  if (best) {
    if (!isEventEntry(best.c)) return { state: 'line', entry: best.c.entry.id };
    return { state: 'complete', header: headerFrom(best.c, best.m, false) };
  }
  let partial: string | undefined;
  for (const c of cat.entries) {
    if (!isEventEntry(c)) continue;
    for (let i = c.cuts.length - 1; i >= 0; i--) {
      const m = c.cuts[i]!.exec(t);
      if (!m) continue;
      const h = headerFrom(c, m, true);
      if (i >= c.anchoredFrom) return { state: 'partial', anchored: h, prefix: h.prefix };
      if (partial === undefined || h.prefix.length < partial.length) partial = h.prefix;
      break;
    }
  }
  if (partial !== undefined) return { state: 'partial', anchored: null, prefix: partial };
  if (!cat.prefixCuts.some((re) => re.test(t))) return null;
  return { state: 'partial', anchored: null, prefix: t };
}

// A whole printk-helper prefix, strictly: optional dynamic-debug `module:function: `, then
// `ALSA file:line[:] `, `driver device: ` (the device name has a digit, dot, colon or dash,
// which tells it from ordinary `Word Word:` text such as `Call Trace:`) or `(NULL device *): `.
const STRICT_PREFIX_RE =
  /^(?:[\w.-]+:[\w.]+: )?(?:ALSA \S+:\d+:? |[\w.-]+ (?=[\w.:-]*[\d.:-][\w.:-]*: )[\w.:-]+: |\(NULL device \*\): )$/;

/** True when the text is exactly one printk-helper prefix (what a header wrapped inside its prefix leaves on the lines before). */
export function isWholePrefix(text: string): boolean {
  return STRICT_PREFIX_RE.test(text.replace(/\s+/g, ' ').replace(/^ /, ''));
}

/** Recognises a whole ALSA XRUN / hw-pointer / invalid-position header, or one cut off after its anchor. */
export function matchAlsaHeader(body: string): AlsaHeader | null {
  const m = matchHeaderText(body);
  if (!m) return null;
  if (m.state === 'complete') return m.header;
  if (m.state === 'partial') return m.anchored;
  return null;
}

const FOREIGN_RES: RegExp[] = [
  /^-+\s*\[\s*cut here\s*\]/,
  /^(?:WARNING|BUG|UBSAN|KASAN|KCSAN|KMSAN|INFO|Oops|NMI watchdog|watchdog|rcu|Kernel panic|kernel BUG|Kernel BUG|general protection fault|Unable to handle kernel|Internal error|bad: scheduling|stack backtrace|sysrq|SysRq|Showing (?:busy|all)|hrtimer: interrupt took)\b/,
  /^NMI backtrace for cpu/,
  /^Sending NMI from CPU/,
  /^task:\S+\s+state:/,
  /non-preemptible critical section violated/,
  /\bstack dump from 0x[0-9a-f]+/,
  /\binvoked oom-killer\b/,
  /\bpage allocation failure\b/,
  /^=+\s*$/,
  /^\S+ \(\d+\) used greatest stack depth/,
  /\bcallbacks suppressed\s*$/,
];

/** Recognises the header of a non-ALSA report (WARNING, BUG, oops, lockdep, hung task …). */
export function isForeignHeader(body: string): boolean {
  const t = body.trimStart();
  // ` =======================` (indented) is the i386 4K-stack split inside one trace, not lockdep's banner.
  if (t.length !== body.length && t.startsWith('=')) return false;
  for (const re of FOREIGN_RES) if (re.test(t)) return true;
  return false;
}

export type FtraceLine = (
  | {
      kind: 'xrun';
      pcm: string | null;
      /** the trace timestamp, s (trace_clock mono/local) */ time: number;
    }
  | { kind: 'stack-start' }
  | { kind: 'other' }
) & {
  /** `comm-pid [cpu]` of the line (null in trimmed excerpts): ties a `<stack trace>` to its event. */
  who: string | null;
};

// trace_pipe: `  insmod-297  [000] d.s1.  92.385517: xrun: (__snd_pcm_xrun+0x0/0xc0)`, with an
// optional `(  297)` tgid column; trimmed excerpts keep only `178.109942: hwptr: …`.
const FTRACE_FULL_RE =
  /^\s*(\S.{0,40}?-\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(\d{3,})\]\s+(?:[\w.]{3,8}\s+)?(\d+\.\d+):\s+(.*)$/;
const FTRACE_SHORT_RE = /^\s*(\d+\.\d+):\s+([\w:]+:\s.*)$/;
// The kprobe on __snd_pcm_xrun (any entry offset: IBT kernels probe after endbr64; or a return
// probe `(caller+0x10e/0x120 <- __snd_pcm_xrun)`), or xrunhunt's fallback on snd_pcm_stop
// with state 4 (XRUN).
const KPROBE_XRUN_RE =
  /\(__snd_pcm_xrun(?:\.\w+)?\+0x[0-9a-f]+\/|<- __snd_pcm_xrun\)|\(snd_pcm_stop\+0x0\/\w+\) state=4\b/;
const TP_XRUN_RE = new RegExp(String.raw`^xrun:\s+(pcmC\d+D\d+[pc](?:\/sub\d+)?): XRUN:`);

// xrunhunt's kprobe names the stream with fetch args: `card=0 dev=0 sub=0 stream=0 cardid="Dummy"`.
const KPROBE_STREAM_RE = /\scard=(\d+) dev=(\d+) sub=(\d+) stream=([01])\b/;

/** The stream a kprobe hit names (`pcmC0D0p/sub0`), or null without fetch args. */
function kprobeStream(rest: string): string | null {
  const m = KPROBE_STREAM_RE.exec(rest);
  return m ? `pcmC${m[1]!}D${m[2]!}${m[4] === '0' ? 'p' : 'c'}/sub${m[3]!}` : null;
}

/** Recognises one trace_pipe / trace text line (null when the line is not ftrace text). */
export function parseFtraceLine(body: string): FtraceLine | null {
  if (!body.includes(': ')) return null;
  const full = FTRACE_FULL_RE.exec(body);
  const m = full ? [full[3], full[4]] : FTRACE_SHORT_RE.exec(body)?.slice(1, 3);
  if (!m) return null;
  const who = full ? `${full[1]!} [${full[2]!}]` : null;
  const rest = m[1]!.trim();
  const time = Number(m[0]);
  if (rest.startsWith('<stack trace>')) return { kind: 'stack-start', who };
  if (KPROBE_XRUN_RE.test(rest)) return { kind: 'xrun', pcm: kprobeStream(rest), time, who };
  const tp = TP_XRUN_RE.exec(rest);
  if (tp) return { kind: 'xrun', pcm: tp[1] ?? null, time, who };
  return { kind: 'other', who };
}
