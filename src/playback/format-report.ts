// Plain-text and JSON renderings of a playback run (pure: values in, strings/objects out).
// Monotonic times are also shown printk-style (seconds.micros) to line up with dmesg.
import type {
  HistogramSummary,
  PlaybackSummary,
  StartedEvent,
  StatsEvent,
  XrunEvent,
} from './types.js';

/** CLOCK_MONOTONIC ns as printk shows it: `639.299262`. */
export function formatMonotonic(ns: bigint): string {
  const us = ns / 1000n;
  return `${us / 1_000_000n}.${String(us % 1_000_000n).padStart(6, '0')}`;
}

function fmtHist(label: string, h: HistogramSummary): string {
  if (h.count === 0) return `${label} (no samples)`;
  const v = (x: number | null): string => (x === null ? '-' : String(x));
  return `${label} min ${v(h.min)}  p50 ${v(h.p50)}  p99 ${v(h.p99)}  p99.9 ${v(h.p999)}  max ${v(h.max)}  (${h.count} samples)`;
}

/** One line per xrun, for the live view and the final report. */
export function formatXrunLine(x: XrunEvent, index: number): string {
  return (
    `#${index + 1} at ${x.time.toFixed(3)} s [${formatMonotonic(x.monotonicNs)}] ` +
    `silent ${x.durationMs.toFixed(2)} ms after ${x.framesWritten} frames` +
    `${x.startSource === 'estimate' ? ' (start estimated)' : ''}${x.injected ? ' [injected stall]' : ''}`
  );
}

/** The line that says what the device granted and how the writer runs. */
export function formatStarted(e: StartedEvent): string {
  const g = e.granted;
  const bufMs = ((g.bufferFrames / g.rate) * 1000).toFixed(2);
  const hw = e.hwPcm ? ` → ${e.hwPcm.kernelName} (${e.hwPcm.id})` : '';
  const pin = e.policy.cpu === null ? '' : `, CPU ${e.policy.cpu}`;
  return (
    `playing on "${e.device}" (${e.pcmType}${hw}): ${g.rate} Hz, ${g.channels} ch, ${g.format}, ` +
    `period ${g.periodFrames}, buffer ${g.bufferFrames} frames (${bufMs} ms); writer ${e.policy.policy}` +
    `${e.policy.priority > 0 ? ` ${e.policy.priority}` : ''}${pin}${formatWakeup(e.wakeup)}`
  );
}

// Only the timer mode is worth a word: the period mode is what every player does.
function formatWakeup(w: StartedEvent['wakeup']): string {
  if (w.requested === 'period') return '';
  return w.periodInterrupts
    ? ', woken by its timer (the device still raises period interrupts)'
    : ', woken by its timer (period interrupts off)';
}

/** The once-a-second progress line (interactive stderr only). */
export function formatStatsLine(s: StatsEvent): string {
  const head = s.minHeadroomUs === null ? '-' : `${s.minHeadroomUs} µs`;
  const wr = s.maxWriteUs === null ? '-' : `${s.maxWriteUs} µs`;
  return `${s.seconds.toFixed(0).padStart(4)} s  frames ${s.frames}  xruns ${s.xruns}  min headroom ${head}  max write ${wr}`;
}

/** The final human report. */
export function formatSummary(s: PlaybackSummary): string {
  const lines: string[] = [];
  lines.push(
    `played ${s.seconds.toFixed(1)} s, ${s.frames} frames, ${s.xruns.length} xrun${s.xruns.length === 1 ? '' : 's'}` +
      (s.stallsInjected > 0 ? ` (${s.stallsInjected} stalls injected)` : '') +
      (s.endReason === 'stopped' ? ' (stopped)' : ''),
  );
  if (s.policy) {
    lines.push(
      `writer thread: ${s.policy.policy}${s.policy.priority > 0 ? ` priority ${s.policy.priority}` : ''} (tid ${s.policy.tid})`,
    );
  }
  if (s.writerThread) {
    const w = s.writerThread;
    lines.push(
      `writer thread CPU ${(w.cpuMs / 1000).toFixed(2)} s (${s.seconds > 0 ? (w.cpuMs / 10 / s.seconds).toFixed(1) : '-'} %), page faults ${w.minorFaults} minor, ${w.majorFaults} major`,
    );
  }
  lines.push(fmtHist('headroom µs:', s.histograms.headroomUs));
  lines.push(fmtHist('write µs:   ', s.histograms.writeUs));
  if (s.xruns.length > 0) {
    lines.push('xruns (time since start [CLOCK_MONOTONIC s, as in dmesg]):');
    s.xruns.forEach((x, i) => lines.push(`  ${formatXrunLine(x, i)}`));
  }
  return lines.join('\n') + '\n';
}

/** The `--json` document: bigints as decimal strings, everything else as is. */
export function summaryToJson(
  s: PlaybackSummary,
  extra: { warnings: string[]; pcmType: string | null },
): unknown {
  return {
    device: s.device,
    pcmType: extra.pcmType,
    granted: s.granted,
    policy: s.policy,
    hwPcm: s.hwPcm,
    wakeup: s.wakeup,
    endReason: s.endReason,
    error: s.error,
    frames: s.frames,
    seconds: s.seconds,
    stallsInjected: s.stallsInjected,
    xruns: s.xruns.map((x) => ({
      ...x,
      monotonicNs: String(x.monotonicNs),
      startNs: String(x.startNs),
    })),
    histograms: s.histograms,
    writerThread: s.writerThread,
    warnings: extra.warnings,
  };
}
