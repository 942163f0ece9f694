// Record headers: the ALSA diagnostics of every era (kernel-log-formats §2) that start an
// event, the non-ALSA report headers whose stacks must not become events (§4.4), and the
// ftrace/trace_pipe lines of a kprobe on __snd_pcm_xrun or the snd_pcm:xrun tracepoint.
import type { EventKind } from './types.js';

export interface AlsaHeader {
  kind: EventKind;
  pcm: string | null;
  /** The printk was wrapped (mailer/syslog): the next line continues it (`XRUN:` ⏎ `pcmC0D0p`). */
  incomplete: boolean;
}

const PCM_TOKEN = String.raw`pcmC\d+D\d+[pc](?::\d+)?`;
const PCM_RE = new RegExp(PCM_TOKEN);
export const PCM_ONLY_RE = new RegExp(String.raw`^\s*(${PCM_TOKEN})\s*$`);
const XRUN_RE = new RegExp(String.raw`(?:^|[\s:])XRUN:[ \t]*(${PCM_TOKEN})?[ \t]*(.*)$`);
const INVALID_POS_RE = new RegExp(
  String.raw`(?:\bBUG|invalid position|XRUN): (?:stream ?= ?\d+|(${PCM_TOKEN})), pos ?= ?`,
);
const HW_PTR_RE =
  /Unexpected hw_pointer value|Unexpected hw_ptr\b|\bhw_ptr skipping|\bPCM: (?:\[[QP]\] ?)?Lost interrupts\?/;
// Vendor trees: `xrun: [0]occured XRUN!` (JetKernel), `occurred buffer xrun[0]` (Dropad).
const VENDOR_XRUN_RE = /\[\d+\]occ?urr?ed XRUN!|occurred buffer xrun\[\d+\]/;

/** Cheap pre-check: could this body be an ALSA header at all? */
export function mayBeAlsaHeader(body: string): boolean {
  return (
    body.includes('XRUN') ||
    body.includes('hw_p') ||
    body.includes('Lost interrupts') ||
    body.includes('pos =') ||
    body.includes('pos=') ||
    body.includes('xrun[')
  );
}

/** Recognises an ALSA XRUN / hw-pointer / invalid-position header line. */
export function matchAlsaHeader(body: string): AlsaHeader | null {
  if (!mayBeAlsaHeader(body)) return null;
  const inv = INVALID_POS_RE.exec(body);
  if (inv) return { kind: 'invalid_position', pcm: inv[1] ?? null, incomplete: false };
  if (HW_PTR_RE.test(body)) {
    const pcm = PCM_RE.exec(body);
    const open = body.lastIndexOf('(');
    return {
      kind: 'hw_ptr_error',
      pcm: pcm ? pcm[0] : null,
      incomplete: open > body.lastIndexOf(')'),
    };
  }
  const x = XRUN_RE.exec(body);
  if (x) {
    const rest = (x[2] ?? '').trim();
    if (x[1] !== undefined) {
      // `XRUN: pcmC0D0p:0` alone; anything after the token other than spaces is another message.
      if (rest.length === 0) return { kind: 'xrun', pcm: x[1], incomplete: false };
      return null;
    }
    if (rest.length === 0) return { kind: 'xrun', pcm: null, incomplete: true };
    return null;
  }
  if (VENDOR_XRUN_RE.test(body)) return { kind: 'xrun', pcm: null, incomplete: false };
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

export type FtraceLine =
  | {
      kind: 'xrun';
      pcm: string | null;
      /** the trace timestamp, s (trace_clock mono/local) */ time: number;
    }
  | { kind: 'stack-start' }
  | { kind: 'other' };

// trace_pipe: `  insmod-297  [000] d.s1.  92.385517: xrun: (__snd_pcm_xrun+0x0/0xc0)`, with an
// optional `(  297)` tgid column; trimmed excerpts keep only `178.109942: hwptr: …`.
const FTRACE_FULL_RE =
  /^\s*\S.{0,40}?-\d+\s+(?:\(\s*[\d-]+\)\s+)?\[\d{3,}\]\s+(?:[\w.]{3,6}\s+)?(\d+\.\d+):\s+(.*)$/;
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
  const m = FTRACE_FULL_RE.exec(body) ?? FTRACE_SHORT_RE.exec(body);
  if (!m) return null;
  const rest = m[2]!.trim();
  const time = Number(m[1]);
  if (rest.startsWith('<stack trace>')) return { kind: 'stack-start' };
  if (KPROBE_XRUN_RE.test(rest)) return { kind: 'xrun', pcm: kprobeStream(rest), time };
  const tp = TP_XRUN_RE.exec(rest);
  if (tp) return { kind: 'xrun', pcm: tp[1] ?? null, time };
  return { kind: 'other' };
}
