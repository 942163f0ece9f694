// Test support: a MOCK kernel-log capture source that replays real XRUN dumps (from the lab
// fixtures) one line at a time, then waits for close() — this host has no sound card, so the
// kernel cannot print any. Everything around it in the run tests is real.
import { readFileSync } from 'node:fs';
import type { CapturedLine, KernelCaptureSource } from '../kernel/source-contract.js';

/** The non-comment lines of a kernel-log fixture under test/fixtures/kernel-logs. */
export function kernelLogFixture(name: string): string[] {
  return readFileSync(new URL(`../../test/fixtures/kernel-logs/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** MOCK kernel-log source: yields `lines` (2 ms apart), then waits until close(). */
export function mockCapture(lines: string[]): KernelCaptureSource & { closed: () => boolean } {
  let closed = false;
  let wake: (() => void) | null = null;
  return {
    name: 'kmsg',
    lostMessages: 0,
    warnings: [],
    closed: () => closed,
    async start() {},
    async close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator](): AsyncIterator<CapturedLine> {
      for (const text of lines) {
        if (closed) return;
        await new Promise((r) => setTimeout(r, 2));
        yield { text, readNs: Number(process.hrtime.bigint()) };
      }
      while (!closed) await new Promise<void>((r) => (wake = r));
    },
  };
}
