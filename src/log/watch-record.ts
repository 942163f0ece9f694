// watch's log: which of its events become log records, at which level, with which fields.
// Pure. Big payloads (stacks, reports, rankings, periodic stats) stay in events.ndjson and
// --json; a log record names what happened in a few fields. Runs on the main thread only
// (watch plays nothing; the records come from its event bus, never from a poller callback).
import type { WatchEvent } from '../watch/run-watch.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

export interface LogRecord {
  level: 'debug' | 'info' | 'warn';
  msg: string;
  fields: Record<string, unknown>;
}

const text = (v: string | null | undefined): string | null =>
  v === null || v === undefined ? null : quoteUntrusted(v, 200);

/** The log record of one watch event, or null for events the log leaves out. */
export function watchLogRecord(e: WatchEvent): LogRecord | null {
  const at = { event: e.type, timeMs: Math.round(e.timeMs) };
  switch (e.type) {
    case 'watch-start':
      return {
        level: 'info',
        msg: `watching ${e.streams.length} stream(s)`,
        fields: { ...at, streams: e.streams.map((s) => text(s.label)) },
      };
    case 'watch-xrun': {
      const o = e.xrun.event.offender;
      return {
        level: 'warn',
        msg: 'kernel xrun report',
        fields: {
          ...at,
          kind: e.xrun.event.kind,
          pcm: text(e.xrun.pcm),
          stream: text(e.xrun.stream),
          owner: text(e.xrun.owner),
          class: o.class,
          function: text(o.function),
          module: text(o.module),
        },
      };
    }
    case 'underrun-seen':
      return {
        level: 'warn',
        msg: 'underrun seen in the stream status',
        fields: { ...at, stream: text(e.stream), state: text(e.state) },
      };
    case 'stream-stopped':
      return {
        level: 'info',
        msg: 'stream stopped',
        fields: { ...at, stream: text(e.stream), state: text(e.state) },
      };
    case 'warning':
      return { level: 'warn', msg: quoteUntrusted(e.message, 500), fields: at };
    case 'capture-status':
      return {
        level: 'info',
        msg: 'kernel capture',
        fields: { ...at, source: e.source, lostMessages: e.lostMessages },
      };
    case 'watch-report':
      return {
        level: 'info',
        msg: 'watch ended',
        fields: { ...at, durationMs: Math.round(e.report.durationMs) },
      };
    case 'jack-start':
      return {
        level: 'info',
        msg: 'JACK observer connected',
        fields: {
          ...at,
          server: text(e.server.name),
          bufferFrames: e.server.bufferFrames,
          sampleRate: e.server.sampleRate,
          logFile: text(e.logFile),
        },
      };
    case 'jack-incident':
      return {
        level: 'warn',
        msg: 'JACK xrun',
        fields: {
          ...at,
          attribution: e.incident.attribution,
          client: text(e.incident.client),
          callbacks: e.incident.callbacks,
          dspLoadPct: e.incident.dspLoadPct,
        },
      };
    case 'jack-shutdown':
      return { level: 'warn', msg: quoteUntrusted(e.reason, 200), fields: at };
    case 'jack-clients':
      return {
        level: 'info',
        msg: 'JACK clients changed',
        fields: { ...at, clients: e.clients.map((c) => text(c.name)) },
      };
    case 'jack-xrun':
    case 'ranking':
    case 'stats':
      return { level: 'debug', msg: e.type, fields: at };
    // Session-shaped events a watch re-emits for the dashboard, and the full report: in
    // events.ndjson / --json, not in the log.
    case 'kernel-event':
    case 'phase-end':
    case 'phase-start':
    case 'playback-started':
    case 'preflight':
    case 'report':
    case 'session-end':
    case 'session-start':
    case 'xrun':
      return null;
  }
}
