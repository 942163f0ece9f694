// Which context detected each XRUN of a guest run: the period interrupt (snd_pcm_period_elapsed,
// or a USB URB completion: the useful case), a sound server's own ioctl or write (timer-scheduled playback: the stack is
// the victim's), or a reader of /proc/asound/…/status (then the watcher itself was the
// detector). Plus the task the kernel printed (`CPU: n PID: p Comm: c`). Pure: the dmesg
// text in, one record per XRUN dump out; the lab's PipeWire tests and docs/lab.md use it.
import { analyzeText } from '../analysis/analyzer.js';
import type { Frame } from '../analysis/types.js';
import { normaliseFunction } from '../kernel/frame.js';
import { parseTraceText } from '../recorder/trace-line.js';
import type { TraceEvent } from '../recorder/breakdown-types.js';

/** Where the kernel was when it noticed the underrun. */
export type DetectionContext = 'period-interrupt' | 'ioctl' | 'write' | 'proc-status' | 'other';

export interface XrunDetection {
  /** 1-based line of the XRUN header in the log. */
  line: number;
  context: DetectionContext;
  /** The ALSA entry point below snd_pcm_update_hw_ptr0 (`snd_pcm_delay`, `snd_pcm_hwsync`…). */
  via: string | null;
  /** The task the kernel printed with the dump: in an interrupt, the one it interrupted. */
  comm: string | null;
  pid: number | null;
}

const TASK_LINE = /\bCPU: \d+ PID: (\d+) Comm: (\S+)/;

/** The context of one XRUN stack (frames innermost first, as printed). */
export function detectionContext(frames: readonly Pick<Frame, 'function'>[]): {
  context: DetectionContext;
  via: string | null;
} {
  const names = frames.map((f) => f.function);
  if (
    names.some(
      (n) => n === 'snd_pcm_period_elapsed' || n === 'snd_pcm_period_elapsed_under_stream_lock',
    )
  ) {
    return { context: 'period-interrupt', via: 'snd_pcm_period_elapsed' };
  }
  // snd-usb-audio: the URB's completion (xHCI interrupt → usb_giveback_urb_bh) finds the buffer
  // empty and stops the stream itself (snd_pcm_stop_xrun): USB's period interrupt.
  if (
    names.includes('snd_pcm_stop_xrun') &&
    names.some((n) => n === '__usb_hcd_giveback_urb' || n === 'usb_giveback_urb_bh')
  ) {
    return { context: 'period-interrupt', via: 'usb URB completion' };
  }
  if (names.includes('snd_pcm_substream_proc_status_read')) {
    return { context: 'proc-status', via: 'snd_pcm_substream_proc_status_read' };
  }
  const below = names.indexOf('snd_pcm_update_hw_ptr0');
  const callers = below >= 0 ? names.slice(below + 1) : names;
  const via = callers.find((n) => n.startsWith('snd_pcm_') || n.startsWith('__snd_pcm_')) ?? null;
  if (names.includes('__snd_pcm_lib_xfer')) return { context: 'write', via: '__snd_pcm_lib_xfer' };
  if (names.some((n) => n === 'snd_pcm_ioctl' || n === 'snd_pcm_common_ioctl'))
    return { context: 'ioctl', via };
  return { context: 'other', via };
}

/** `name+0x…/0x…` symbols of the lines after header line `line` up to the next XRUN header. */
function rawFrames(lines: readonly string[], line: number): { function: string }[] {
  const out: { function: string }[] = [];
  for (let i = line; i < lines.length && !/XRUN:/.test(lines[i] ?? ''); i++) {
    const m = /\s(?:\? )?([A-Za-z_][\w.]*)\+0x[0-9a-f]+\/0x[0-9a-f]+/.exec(lines[i] ?? '');
    if (m?.[1] && !/\b(?:RIP|Stopper):/.test(lines[i] ?? ''))
      out.push({ function: normaliseFunction(m[1]) });
  }
  return out;
}

// Classifies every XRUN dump of a kernel log.
export function xrunDetections(dmesg: string): XrunDetection[] {
  const lines = dmesg.split('\n');
  return analyzeText(dmesg)
    .events.filter((e) => e.kind === 'xrun')
    .map((e) => {
      let comm: string | null = null;
      let pid: number | null = null;
      // The task line follows the header within a few lines (dump_stack prints it first).
      for (let i = e.line; i < Math.min(lines.length, e.line + 4); i++) {
        const m = TASK_LINE.exec(lines[i] ?? '');
        if (m) {
          pid = Number(m[1]);
          comm = m[2] ?? null;
          break;
        }
      }
      // The analyzer keeps no frames for a dump with a `Stopper:` line after the task line
      // (cpu_stopper threads): read the function names of the raw lines instead.
      const frames = e.frames.length > 0 ? e.frames : rawFrames(lines, e.line);
      return { line: e.line, ...detectionContext(frames), comm, pid };
    });
}

/** Counts per context and per detecting task, for docs and test messages. */
export function summariseDetections(ds: readonly XrunDetection[]): {
  total: number;
  byContext: Record<DetectionContext, number>;
  processContextComms: Record<string, number>;
} {
  const byContext: Record<DetectionContext, number> = {
    'period-interrupt': 0,
    ioctl: 0,
    write: 0,
    'proc-status': 0,
    other: 0,
  };
  const processContextComms: Record<string, number> = {};
  for (const d of ds) {
    byContext[d.context]++;
    if (d.context !== 'period-interrupt') {
      const k = `${d.comm ?? '?'}${d.via ? ` via ${d.via}` : ''}`;
      processContextComms[k] = (processContextComms[k] ?? 0) + 1;
    }
  }
  return { total: ds.length, byContext, processContextComms };
}

/** The flight recorder's xrun probe event as ftrace prints it (`xrunhunt_rec/xrun` → `xrun`). */
const RECORDER_HIT_EVENT = 'xrun';

// Classifies every hit of a recorder.txt (the recorder's xrun probe with its stack trace), for
// runs without kernel log dumps (Debian's kernel, `--capture none`): the hit's task and the
// context its stack shows. Each window is parsed on its own; a hit seen in two overlapping
// windows is counted once.
export function recorderHitDetections(recorderTxt: string): XrunDetection[] {
  const hits = new Map<string, { e: TraceEvent; line: number }>();
  const lines = recorderTxt.split('\n');
  let start = 0;
  const parseWindow = (end: number): void => {
    const { events } = parseTraceText(lines.slice(start, end).join('\n'));
    for (const e of events) {
      if (e.name !== RECORDER_HIT_EVENT) continue;
      const key = `${e.cpu}:${e.ts}`;
      const had = hits.get(key);
      if (!had || (e.stack && !had.e.stack)) hits.set(key, { e, line: start + 1 });
    }
  };
  lines.forEach((l, i) => {
    if (!l.startsWith('# window ')) return;
    parseWindow(i);
    start = i;
  });
  parseWindow(lines.length);
  return [...hits.values()]
    .sort((a, b) => a.e.ts - b.e.ts)
    .map(({ e, line }) => {
      const frames = (e.stack ?? []).map((f) => ({
        function: normaliseFunction(f.replace(/^=>\s*/, '').split(/[+\s]/)[0] ?? f),
      }));
      return { line, ...detectionContext(frames), comm: e.comm, pid: e.pid };
    });
}
