// serve's text log: one line per answered upload. The error text may quote what a client
// sent (a field value, a header), so it is escaped and bounded here once more, whatever the
// receiver already did: a log line must never carry a terminal escape or a forged newline.
import type { UploadResult } from '../bundle/receiver.js';
import { quoteUntrusted } from '../text/untrusted-text.js';

/** The text log line for one upload result (ends with a newline). */
export function uploadLogLine(at: Date, r: UploadResult): string {
  const what = r.id ?? quoteUntrusted(r.error ?? '', 300);
  const outcome = r.outcome === 'accepted' || r.outcome === 'duplicate' ? '' : `${r.outcome}: `;
  return `${at.toISOString()} ${quoteUntrusted(r.client, 64)} ${r.status} ${outcome}${what}\n`;
}
