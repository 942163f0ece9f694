// serve's log record for one answered upload: id, size, result, duration, client. The error
// text may quote what a client sent, so it is escaped and bounded once more (JSON escapes C0
// controls; C1 and bidi overrides would still reach a terminal that tails the log).
import type { UploadResult } from '../bundle/receiver.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

export interface UploadRecord {
  event: 'upload';
  result: UploadResult['outcome'];
  status: number;
  client: string;
  id: string | null;
  bytes: number | null;
  durationMs: number | null;
  queuedMs?: number;
  error?: string;
}

/** The log fields of one upload; exists so serve logs every upload in one shape. */
export function uploadRecord(r: UploadResult): UploadRecord {
  return {
    event: 'upload',
    result: r.outcome,
    status: r.status,
    client: quoteUntrusted(r.client, 64),
    id: r.id ?? null,
    bytes: r.bytes ?? null,
    durationMs: r.durationMs === undefined ? null : Math.round(r.durationMs),
    ...(r.queuedMs === undefined ? {} : { queuedMs: r.queuedMs }),
    ...(r.error === undefined ? {} : { error: quoteUntrusted(r.error, 300) }),
  };
}

/** The level of an upload record: refusals are warnings, server faults errors. */
export function uploadLevel(r: UploadResult): 'info' | 'warn' | 'error' {
  if (r.outcome === 'failed') return 'error';
  return r.outcome === 'rejected' || r.outcome === 'aborted' ? 'warn' : 'info';
}
