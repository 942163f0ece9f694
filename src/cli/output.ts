// Small helpers every outputter uses: one JSON document on stdout, NDJSON lines for streams,
// and human reports that quote outside text made safe for a terminal.
import type { Writable } from 'node:stream';
import { escapeControlChars, terminalSafeJson } from '../text/untrusted-text.js';

/** Writes one JSON document followed by a newline (the `--json` contract). */
export function writeJson(out: Writable, value: unknown): void {
  out.write(terminalSafeJson(JSON.stringify(value, null, 2)) + '\n');
}

/** Writes one NDJSON record (streams: `--json` on watch-like commands). */
export function writeNdjson(out: Writable, value: unknown): void {
  out.write(terminalSafeJson(JSON.stringify(value)) + '\n');
}

/**
 * Escapes control characters line by line (newlines kept): for human reports that quote
 * text from bundles or logs (function names, signatures, releases) only type-checked before.
 */
export function terminalSafe(text: string): string {
  return text.split('\n').map(escapeControlChars).join('\n');
}
