// The dashboard's fallback when stdout is not a terminal (a pipe, a log file, CI): one plain
// line per event that matters, no cursor movement, no colour. Stats are thinned so a long
// session's log stays readable.
import type { SessionEvent } from '../session/events.js';
import { clock } from './text-graphics.js';

/** Stats lines are printed at most this often (ms of session time): every 10 s. */
export const PLAIN_STATS_EVERY_MS = 10_000;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function offenderText(e: Extract<SessionEvent, { type: 'kernel-event' }>['event']): string {
  const o = e.offender;
  if (o.class !== 'kernel')
    return o.class === 'none' ? 'no offender found' : `${o.class} (not a kernel offender)`;
  return `${o.function ?? '?'}${o.module ? ` [${o.module}]` : ''}`;
}

/**
 * Formats one event as a line (without newline), or null for events not worth a line.
 * `lastStatsMs` is the session time of the last printed stats line (for thinning).
 */
export function formatPlainLine(event: SessionEvent, lastStatsMs: number | null): string | null {
  const t = `[${clock(event.timeMs)}]`;
  switch (event.type) {
    case 'session-start':
      return `${t} session on ${event.params.device}, ${event.params.rateHz} Hz, period ${event.params.periodFrames} frames × ${event.params.periods}, phases ${event.params.phasePlan} (kernel ${event.host.kernelRelease} ${event.host.preempt})`;
    case 'preflight': {
      const bad = event.checks.filter((c) => c.status === 'warn' || c.status === 'fail');
      return bad.length === 0 ? null : bad.map((c) => `${t} ${c.status}: ${c.message}`).join('\n');
    }
    case 'playback-started':
      return `${t} playing: ${event.granted.rateHz} Hz, period ${event.granted.periodFrames} / buffer ${event.granted.bufferFrames} frames, ${event.policy}${event.hwPcm ? `, ${event.hwPcm}` : ''}`;
    case 'phase-start':
      return `${t} phase ${event.index + 1}/${event.total} ${event.phase} (${event.kind}) for ${clock(event.durationMs)}`;
    case 'phase-end': {
      const tp = event.throughput;
      const rate = tp
        ? `, ${tp.mbPerSec.toFixed(1)} MB/s${tp.opsPerSec ? `, ${tp.opsPerSec.toFixed(0)} ops/s` : ''}`
        : '';
      return `${t} phase ${event.phase} done: ${plural(event.xruns, 'xrun')}${rate}${event.cut ? ' (cut short)' : ''}`;
    }
    case 'xrun':
      return `${t} XRUN #${event.index + 1}${event.phase ? ` during ${event.phase}` : ''}${event.durationMs !== null ? `, stopped ${event.durationMs.toFixed(1)} ms` : ''}`;
    case 'kernel-event':
      return `${t} kernel ${event.event.kind}${event.event.pcm ? ` ${event.event.pcm}` : ''}: ${offenderText(event.event)}${event.matchedXrun !== null ? ` (xrun #${event.matchedXrun + 1})` : ''}`;
    case 'stats': {
      if (lastStatsMs !== null && event.timeMs - lastStatsMs < PLAIN_STATS_EVERY_MS) return null;
      const h = event.headroom;
      return `${t} ${plural(event.xruns, 'xrun')}, ${plural(event.kernelEvents, 'kernel event')}${h ? `, headroom min ${Math.round(h.minUs)} µs p50 ${Math.round(h.p50Us)} µs` : ''}${event.load ? `, load ${event.load.mbPerSec.toFixed(1)} MB/s` : ''}${event.loadPaused ? ' (load paused)' : ''}`;
    }
    case 'capture-status':
      return `${t} kernel log: ${event.source}, ${event.lostMessages} lost${event.mask !== null ? `, xrun_debug ${event.mask}${event.pcm ? ` on ${event.pcm}` : ''}` : ''}, stack dumps ${event.stackDumps ? 'on' : 'off'}`;
    case 'warning':
      return `${t} warning: ${event.message}`;
    case 'report':
      return event.report.conclusion.length > 0
        ? event.report.conclusion.map((c) => `${t} ${c}`).join('\n')
        : null;
    case 'session-end':
      return `${t} session ended (exit ${event.exitCode})`;
  }
}

/** Follows a source and writes plain lines; returns the unsubscribe function. */
export function followPlain(
  source: {
    readonly history: readonly SessionEvent[];
    on(l: (e: SessionEvent) => void): () => void;
  },
  write: (line: string) => void,
): () => void {
  let lastStats: number | null = null;
  const print = (e: SessionEvent) => {
    const line = formatPlainLine(e, lastStats);
    if (e.type === 'stats' && line !== null) lastStats = e.timeMs;
    if (line !== null) write(`${line}\n`);
  };
  const seen = source.history.length;
  source.history.slice(0, seen).forEach(print);
  return source.on(print);
}
