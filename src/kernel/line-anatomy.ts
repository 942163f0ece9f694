// Line anatomy: LINE := QUOTE? TRANSPORT? PRINTK_TS? CALLER? BODY (kernel-log-formats §1).
// Strips the prefixes left to right and remembers what they said, so the rest of the
// parser only ever sees the kernel's own text.

/** How the line reached the input (none = plain dmesg / console / paste). */
export type Transport =
  'none' | 'syslog' | 'journal-monotonic' | 'dmesg-T' | 'dmesg-H' | 'kmsg' | 'kmsg-dict';

export interface LogLine {
  /** Kernel text after all prefixes, leading spaces kept (they mark frames and continuations). */
  body: string;
  transport: Transport;
  /** Mail quoting depth (`> > ` = 2). */
  quoteDepth: number;
  /** Seconds since boot from the printk timestamp, kmsg USEC or journal monotonic stamp. */
  time?: number;
  /** CONFIG_PRINTK_CALLER id (`T123` task, `C0` cpu). */
  caller?: string;
  /** kmsg/`<N>` log level 0–7 when printed. */
  level?: number;
  /** Syslog/journal host name. */
  host?: string;
  /** A syslog/journal line from another program (not `kernel:`): not kernel text. */
  foreign?: boolean;
  /** kmsg record flagged as a continuation fragment (FLAGS `c`). */
  kmsgContinuation?: boolean;
}

const QUOTE_RE = /^(?:[ \t]{0,2}>[ \t]?)+/;
// Month names are locale dependent and may be non-ASCII (`ápr`, `dub`, `Mär`, `juil.`, `11月`).
const SYSLOG_RE =
  /^(?:\p{L}[\p{L}.]{1,8}|\d{1,2}\p{L}{1,2}) {1,2}\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)? (\S+) ([^\s:[]+)(?:\[\d+\])?:(?: |$)/u;
const SYSLOG_ISO_RE =
  /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? (\S+) ([^\s:[]+)(?:\[\d+\])?:(?: |$)/;
const JOURNAL_MONO_RE = /^\[\s*(\d+\.\d+)\] (?:(\S+) )?kernel:(?: |$)/;
const KMSG_RE = /^([0-9]{1,4}),([0-9]+),([0-9]+),([^;]*);/;
const KMSG_DICT_RE = /^ [A-Z0-9_]+=/;
// dmesg -T: `[Thu Oct  7 12:44:01 2021]`, `[v ápr 11 18:24:21 2021]`, `[Do 7. Okt 12:44:01 2021]`.
const DMESG_T_RE = /^\[[^\]\d]{0,24}\d{1,4}[^\]]{0,24}?\d\d:\d\d:\d\d[^\]]{0,12}\] ?/u;
// dmesg -H: `[Apr30 19:31]` opening a burst, `[  +0.000006]` deltas after it.
const DMESG_H_RE =
  /^(?:\[[^\]\d]{1,12} ?\d{1,2} \d\d:\d\d\]|\[\s*[+-]\s*\d+\.\d+\]|\[\s*[+-]\d+\.\d+\]) ?/u;
const LEVEL_RE = /^<(\d{1,2})>/;
// dmesg -x: `kern  :warn  : `.
const DMESG_X_RE =
  /^(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local\d)\s*:\s*(?:emerg|alert|crit|err|warn|notice|info|debug)\s*: ?/;
// Colours from `dmesg --color=always` / journalctl pasted with escapes.
const ESC = String.fromCharCode(27);
const ANSI_RE = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g');
const PRINTK_TS_RE = /^\[\s*(\d+\.\d+)\] ?/;
const INDENTED_TS_RE = /^[ \t]+\[\s*\d+\.\d+\]/;
const CALLER_RE = /^\[\s*([TC]\d+)\] ?/;
// MediaTek vendor kernels: `(cpu)[pid:comm]` right after the timestamp.
const MTK_CALLER_RE = /^\((\d+)\)\[(\d+):[^\]]{0,32}\]/;

/** Parses one physical line; `afterKmsg` says the previous line was a kmsg record (dictionary lines follow those). */
export function parseLogLine(raw: string, afterKmsg = false): LogLine {
  let s = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (s.includes(ESC)) s = s.replace(ANSI_RE, '');
  const line: LogLine = { body: '', transport: 'none', quoteDepth: 0 };

  if (afterKmsg && KMSG_DICT_RE.test(s)) {
    line.transport = 'kmsg-dict';
    line.body = s;
    return line;
  }

  const c0 = s.charCodeAt(0);
  if (c0 === 62 /* > */ || ((c0 === 32 || c0 === 9) && QUOTE_RE.test(s))) {
    const q = QUOTE_RE.exec(s);
    if (q) {
      line.quoteDepth = (q[0].match(/>/g) ?? []).length;
      s = s.slice(q[0].length);
    }
  }

  // Excerpts pasted into mail and issues are often indented: `>   [161644.076666] snd_…`.
  if ((s.charCodeAt(0) === 32 || s.charCodeAt(0) === 9) && INDENTED_TS_RE.test(s))
    s = s.trimStart();
  if (s.charCodeAt(0) >= 97 && s.charCodeAt(0) <= 117) {
    const x = DMESG_X_RE.exec(s);
    if (x) s = s.slice(x[0].length);
  }
  const c = s.charCodeAt(0);
  if (c >= 48 && c <= 57) {
    const k = KMSG_RE.exec(s);
    if (k) {
      const pri = Number(k[1]);
      line.transport = 'kmsg';
      line.level = pri & 7;
      line.time = Number(k[3]) / 1e6;
      if ((k[4] ?? '').startsWith('c')) line.kmsgContinuation = true;
      line.body = s.slice(k[0].length);
      return line;
    }
    const cjk = SYSLOG_RE.exec(s);
    if (cjk) {
      line.transport = 'syslog';
      line.host = cjk[1];
      if (cjk[2] !== 'kernel') line.foreign = true;
      s = s.slice(cjk[0].length);
    }
    const iso = cjk ? null : SYSLOG_ISO_RE.exec(s);
    if (iso) {
      line.transport = 'syslog';
      line.host = iso[1];
      if (iso[2] !== 'kernel') line.foreign = true;
      s = s.slice(iso[0].length);
    }
  } else if (c === 91 /* [ */) {
    const jm = JOURNAL_MONO_RE.exec(s);
    if (jm) {
      line.transport = 'journal-monotonic';
      line.time = Number(jm[1]);
      if (jm[2] !== undefined) line.host = jm[2];
      s = s.slice(jm[0].length);
    } else if (!PRINTK_TS_RE.test(s)) {
      const t = DMESG_T_RE.exec(s);
      if (t) {
        line.transport = 'dmesg-T';
        s = s.slice(t[0].length);
      } else {
        const h = DMESG_H_RE.exec(s);
        if (h) {
          line.transport = 'dmesg-H';
          s = s.slice(h[0].length);
        }
      }
    }
  } else if (c > 64) {
    const sy = SYSLOG_RE.exec(s);
    if (sy) {
      line.transport = 'syslog';
      line.host = sy[1];
      if (sy[2] !== 'kernel') line.foreign = true;
      s = s.slice(sy[0].length);
    }
  }

  if (s.charCodeAt(0) === 60 /* < */) {
    const lv = LEVEL_RE.exec(s);
    if (lv) {
      line.level = Number(lv[1]) & 7;
      s = s.slice(lv[0].length);
    }
  }
  if (s.charCodeAt(0) === 91 /* [ */) {
    const ts = PRINTK_TS_RE.exec(s);
    if (ts) {
      line.time = Number(ts[1]);
      s = s.slice(ts[0].length);
    }
    if (s.charCodeAt(0) === 91) {
      const cl = CALLER_RE.exec(s);
      if (cl) {
        line.caller = cl[1];
        s = s.slice(cl[0].length);
      }
    }
  }
  if (s.charCodeAt(0) === 40 /* ( */ && line.caller === undefined) {
    const mtk = MTK_CALLER_RE.exec(s);
    if (mtk) {
      line.caller = `T${mtk[2]}`;
      s = s.slice(mtk[0].length);
    }
  }
  line.body = s;
  return line;
}
