// Pure parsers for the /proc files watch reads besides discovery's: a running substream's
// status (pointers, avail), hw_params (period/buffer/rate/format), sw_params (whether the
// kernel may stop the stream on an underrun at all), and the load files (/proc/loadavg,
// /proc/pressure/*, /proc/<pid>/stat). Formats as printed by 6.1's sound/core/pcm.c and
// fs/proc; every parser tolerates garbage (returns undefined fields), none throws.
import { parseKeyValueLines } from '../proc/index.js';

/** subN/status of an open substream (pcm.c snd_pcm_substream_proc_status_read). */
export interface StreamStatus {
  /** 'closed' when nothing has the substream open. */
  state: string;
  ownerPid: number | undefined;
  /** Frames the hardware has consumed (playback), monotonic up to `boundary`. */
  hwPtr: number | undefined;
  /** Frames the application has written, monotonic up to `boundary`. */
  applPtr: number | undefined;
  avail: number | undefined;
  /** Largest avail since the last status read (by anyone: reading resets it). */
  availMax: number | undefined;
  delay: number | undefined;
}

/** subN/hw_params of a configured substream. */
export interface StreamHwParams {
  access: string | undefined;
  format: string | undefined;
  channels: number | undefined;
  rateHz: number | undefined;
  periodFrames: number | undefined;
  bufferFrames: number | undefined;
}

/** subN/sw_params: the thresholds that decide whether the kernel reports an underrun. */
export interface StreamSwParams {
  startThreshold: number | undefined;
  stopThreshold: number | undefined;
  silenceThreshold: number | undefined;
  silenceSize: number | undefined;
  boundary: number | undefined;
}

// Unsigned longs (boundary is 2^62 on 64-bit) do not fit a double exactly; the comparisons
// we make (>= buffer size) are safe at double precision.
const num = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const m = /^-?\d+/.exec(v.trim());
  return m ? Number(m[0]) : undefined;
};

/** Parses subN/status; `closed` and unreadable text give state 'closed' / 'unknown'. */
export function parseStreamStatus(text: string): StreamStatus {
  const t = text.trim();
  const empty = {
    ownerPid: undefined,
    hwPtr: undefined,
    applPtr: undefined,
    avail: undefined,
    availMax: undefined,
    delay: undefined,
  };
  if (t === '' || t === 'closed') return { state: 'closed', ...empty };
  const kv = parseKeyValueLines(text);
  const pid = num(kv.get('owner_pid'));
  return {
    state: kv.get('state') ?? 'unknown',
    ownerPid: pid !== undefined && pid > 0 ? pid : undefined,
    hwPtr: num(kv.get('hw_ptr')),
    applPtr: num(kv.get('appl_ptr')),
    avail: num(kv.get('avail')),
    availMax: num(kv.get('avail_max')),
    delay: num(kv.get('delay')),
  };
}

/** Parses subN/hw_params; `closed` / `no setup` give all fields undefined. */
export function parseHwParams(text: string): StreamHwParams {
  const kv = parseKeyValueLines(text);
  return {
    access: kv.get('access'),
    format: kv.get('format'),
    channels: num(kv.get('channels')),
    rateHz: num(kv.get('rate')),
    periodFrames: num(kv.get('period_size')),
    bufferFrames: num(kv.get('buffer_size')),
  };
}

/** Parses subN/sw_params. */
export function parseSwParams(text: string): StreamSwParams {
  const kv = parseKeyValueLines(text);
  return {
    startThreshold: num(kv.get('start_threshold')),
    stopThreshold: num(kv.get('stop_threshold')),
    silenceThreshold: num(kv.get('silence_threshold')),
    silenceSize: num(kv.get('silence_size')),
    boundary: num(kv.get('boundary')),
  };
}

/** /proc/loadavg: the 1, 5 and 15 minute load averages and running/total tasks. */
export interface LoadAverage {
  one: number;
  five: number;
  fifteen: number;
  running: number | undefined;
  total: number | undefined;
}

/** Parses /proc/loadavg (`0.52 0.58 0.59 2/915 12345`); undefined for anything else. */
export function parseLoadavg(text: string): LoadAverage | undefined {
  const m = /^\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)(?:\s+(\d+)\/(\d+))?/.exec(text);
  if (!m) return undefined;
  return {
    one: Number(m[1]),
    five: Number(m[2]),
    fifteen: Number(m[3]),
    running: m[4] === undefined ? undefined : Number(m[4]),
    total: m[5] === undefined ? undefined : Number(m[5]),
  };
}

/** One /proc/pressure/<resource> file: share of time some (or all) tasks stalled, %. */
export interface Pressure {
  someAvg10: number | undefined;
  fullAvg10: number | undefined;
  /** Total stall time in µs (`some total=`). */
  someTotalUs: number | undefined;
}

/** Parses /proc/pressure/{cpu,io,memory} (`some avg10=0.00 avg60=… total=…`). */
export function parsePressure(text: string): Pressure {
  const line = (kind: string): Map<string, number> => {
    const m = new RegExp(`^${kind}\\s+(.*)$`, 'm').exec(text);
    const out = new Map<string, number>();
    for (const part of (m?.[1] ?? '').split(/\s+/)) {
      const [k, v] = part.split('=');
      if (k && v !== undefined && /^[\d.]+$/.test(v)) out.set(k, Number(v));
    }
    return out;
  };
  const some = line('some');
  const full = line('full');
  return {
    someAvg10: some.get('avg10'),
    fullAvg10: full.get('avg10'),
    someTotalUs: some.get('total'),
  };
}

/** The fields of /proc/<pid>/stat that say how busy a process was. */
export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  /** utime + stime, clock ticks. */
  cpuTicks: number;
  /** stime alone: time spent in the kernel on its behalf, ticks. */
  systemTicks: number;
}

/** Parses /proc/<pid>/stat; the comm may hold spaces and parentheses (`(tmux: server)`). */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // After the comm: state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isInteger(pid) || !Number.isFinite(utime) || !Number.isFinite(stime))
    return undefined;
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    cpuTicks: utime + stime,
    systemTicks: stime,
  };
}
