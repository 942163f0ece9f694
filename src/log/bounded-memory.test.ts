// A long watch: 100,000 kernel xrun reports through what a watch keeps per event (the
// KeptList of run/bounded.ts the watch ranks from) and its log (watchLogRecord → pino → a
// file). Once the list is full, more events must not grow the heap: measured after forced
// GCs between the 10,000th event (cap reached) and the 100,000th.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KeptList, MAX_KEPT_KERNEL_EVENTS } from '../run/bounded.js';
import type { WatchEvent } from '../watch/run-watch.js';
import type { WatchXrun } from '../watch/watch-ranking.js';
import { openDaemonLog } from './daemon-log.js';
import { watchLogRecord } from './watch-record.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

function xrunEvent(i: number): WatchXrun {
  return {
    index: i,
    timeMs: i * 10,
    pcm: 'pcmC0D0p',
    stream: 'pcmC0D0p sub0',
    owner: 'pipewire',
    load: null,
    event: {
      kind: 'xrun',
      pcm: 'pcmC0D0p',
      time: i / 100,
      sessionMs: i * 10,
      phase: 'watch',
      offender: {
        class: 'kernel',
        function: 'test_unlock',
        module: 'test_lockup',
        signature: 'test_unlock',
      },
      frames: Array.from({ length: 20 }, (_, k) => `frame_${k}_${i % 7} [snd_pcm]`),
    },
  };
}

test('100,000 watch events: kept list capped, log written, heap flat once the cap is reached', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'xrunhunt-bounded-'));
  try {
    const file = join(dir, 'watch.log');
    const log = openDaemonLog({ command: 'watch', level: 'info', file, stderr: process.stderr });
    const kept = new KeptList<WatchXrun>(MAX_KEPT_KERNEL_EVENTS);
    const feed = async (from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        const x = xrunEvent(i);
        kept.push(x);
        const e: WatchEvent = { type: 'watch-xrun', timeMs: x.timeMs, xrun: x };
        const rec = watchLogRecord(e)!;
        log.logger[rec.level](rec.fields, rec.msg);
        // Let the asynchronous file writer catch up, as it does between a real watch's polls.
        if (i % 1000 === 999) await log.flush();
      }
    };
    await feed(0, MAX_KEPT_KERNEL_EVENTS);
    const atCap = heapAfterGc();
    await feed(MAX_KEPT_KERNEL_EVENTS, 100_000);
    const atEnd = heapAfterGc();
    await log.close();
    assert.equal(kept.items.length, MAX_KEPT_KERNEL_EVENTS);
    assert.equal(kept.dropped, 100_000 - MAX_KEPT_KERNEL_EVENTS);
    const grownMb = (atEnd - atCap) / 1024 / 1024;
    // 90,000 more events of ~2 KB each would be ~180 MB if kept; allow 16 MB of noise.
    assert.ok(grownMb < 16, `heap grew ${grownMb.toFixed(1)} MB after the cap`);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, 100_000, 'every event logged, none lost at close');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
