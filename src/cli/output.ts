// Small helpers every outputter uses: one JSON document on stdout, NDJSON lines for streams.
import type { Writable } from 'node:stream';

/** Writes one JSON document followed by a newline (the `--json` contract). */
export function writeJson(out: Writable, value: unknown): void {
  out.write(JSON.stringify(value, null, 2) + '\n');
}

/** Writes one NDJSON record (streams: `--json` on watch-like commands). */
export function writeNdjson(out: Writable, value: unknown): void {
  out.write(JSON.stringify(value) + '\n');
}
