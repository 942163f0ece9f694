// The write loop allocates nothing per period (issue 15): a BigInt, a boxed number or an
// object made on every period is garbage 750 times a second at 64 frames / 48 kHz, and the
// writer thread pays for it in scavenges and minor faults. This file runs the loop in a child
// process (node --expose-gc) and counts the bytes allocated on the young-generation heap (where
// every short-lived object is born) in windows of periods in the middle of one long run: after
// a warm-up in which every steady-state branch (stats events included) has run, with the JIT
// compiling synchronously (so a background compile that is late on a loaded machine does not
// leave the loop interpreted inside a window), and the least of several windows is the
// steady state (a cost of every period is in every window). Counting, not timing: bytes
// allocated = growth of the young generation + what each GC in the window took out of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { MockClock, MockPcm } from '../alsa/mock-pcm.js';
import { AlsaPcm } from '../alsa/alsa-pcm.js';
import type { WakeupMode } from '../alsa/pcm-binding.js';
import { openMonotonicClock } from '../alsa/monotonic-clock.js';
import type { MonotonicClock } from '../alsa/monotonic-clock.js';
import type { GrantedParams, PcmBinding } from '../alsa/pcm-binding.js';
import { createSignalSource } from './signal-source.js';
import { runWriteLoop } from './write-loop.js';
import type { SignalKind } from './types.js';

const PROBE_ENV = 'XRUNHUNT_LOOP_ALLOCATION_PROBE';

// The smallest heap object V8 makes (a HeapNumber) is 16 bytes, a BigInt 24: anything
// allocated on every period shows as >= 16 bytes per period. What may remain is per event: a
// stats event per second of virtual time on the MOCK is one per 750 periods (< 0.5 B each).
const MAX_BYTES_PER_PERIOD = 2;
const WARMUP_PERIODS = 100_000;
const WINDOW_PERIODS = 50_000;
const WINDOWS = 6;
// Stats events must have run before the window opens (their first run changes the loop's
// JIT code); on the real clock an interval of 50 ms gets there quickly.
const WARMUP_STATS_EVENTS = 2;

interface ProbeResult {
  /** Bytes per period in the least-allocating window. */
  bytesPerPeriod: number;
  /** Bytes allocated in each window of WINDOW_PERIODS periods. */
  windowBytes: number[];
}

type PcmKind = 'mock' | 'null';

const granted: GrantedParams = {
  rate: 48000,
  channels: 2,
  format: 'S16_LE',
  periodFrames: 64,
  bufferFrames: 128,
  frameBytes: 4,
};

function youngBytes(
  spaces: readonly {
    space_name?: string;
    spaceName?: string;
    space_used_size?: number;
    spaceUsedSize?: number;
  }[],
): number {
  const s = spaces.find((x) => (x.space_name ?? x.spaceName) === 'new_space');
  return s?.space_used_size ?? s?.spaceUsedSize ?? 0;
}

// Counts young-generation bytes allocated between open() and close().
function allocationWindow(): { open(): void; close(): { bytes: number; gcs: number } } {
  let profiler: v8.GCProfiler | null = null;
  let before = 0;
  return {
    open(): void {
      (globalThis as unknown as { gc: () => void }).gc();
      profiler = new v8.GCProfiler();
      profiler.start();
      before = youngBytes(v8.getHeapSpaceStatistics());
    },
    close(): { bytes: number; gcs: number } {
      const after = youngBytes(v8.getHeapSpaceStatistics());
      const gcs = profiler?.stop().statistics ?? [];
      let collected = 0;
      for (const g of gcs) {
        collected +=
          youngBytes(g.beforeGC.heapSpaceStatistics) - youngBytes(g.afterGC.heapSpaceStatistics);
      }
      return { bytes: after - before + collected, gcs: gcs.length };
    },
  };
}

// One long loop run on a fresh PCM, wired as the worker wires it, with the window inside.
function probe(kind: PcmKind, signal: SignalKind, wakeup: WakeupMode): ProbeResult {
  let pcm: PcmBinding & { close(): void };
  let clock: MonotonicClock;
  let sleepMs: (ms: number) => void = () => undefined;
  if (kind === 'mock') {
    const mockClock = new MockClock();
    clock = mockClock;
    sleepMs = mockClock.sleepMs;
    pcm = new MockPcm({
      clock: mockClock,
      rate: 48000,
      periodFrames: 64,
      bufferFrames: 128,
      logCalls: false,
    });
  } else {
    const alsa = AlsaPcm.open('null');
    alsa.configure({
      rate: 48000,
      channels: 2,
      format: 'S16_LE',
      periodFrames: 64,
      periods: 2,
      wakeup,
    });
    pcm = alsa;
    clock = openMonotonicClock();
  }
  const source = createSignalSource(signal, granted);
  const window = allocationWindow();
  const windowBytes: number[] = [];
  let written = 0;
  let statsEvents = 0;
  let windowOpen = false;
  let done = false;
  // The window bookkeeping runs only at marks, in its own function: the loop inlines
  // nextPeriod, and a new branch taken there would deoptimize the loop (then run interpreted,
  // allocating, until it is compiled again) at every window boundary.
  let markAt = WARMUP_PERIODS;
  const mark = (): void => {
    if (!windowOpen && statsEvents < WARMUP_STATS_EVENTS) {
      markAt += 1000;
      return;
    }
    if (windowOpen) windowBytes.push(window.close().bytes);
    windowOpen = windowBytes.length < WINDOWS;
    if (windowOpen) window.open();
    done = !windowOpen;
    markAt = written + WINDOW_PERIODS;
  };
  try {
    const result = runWriteLoop(
      {
        granted,
        durationNs: null,
        stalls: null,
        statsIntervalNs: kind === 'mock' ? 1e9 : 50e6,
        waitTimeoutMs: 1000,
        wakeup,
      },
      {
        pcm,
        clock,
        sleepMs,
        shouldStop: () => done,
        nextPeriod: () => {
          written++;
          if (written === markAt) mark();
          return source();
        },
        emit: (e) => {
          if (e.type === 'stats') statsEvents++;
        },
      },
    );
    if (result.endReason !== 'stopped' || result.xruns.length !== 0) {
      throw new Error(`probe run ended ${result.endReason} with ${result.xruns.length} xruns`);
    }
  } finally {
    pcm.close();
  }
  return { bytesPerPeriod: Math.min(...windowBytes) / WINDOW_PERIODS, windowBytes };
}

// Runs this file as the probe in a child with --expose-gc (and nothing else on its heap).
function runProbe(kind: PcmKind, signal: SignalKind, wakeup: WakeupMode): ProbeResult {
  const r = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--no-concurrent-recompilation',
      '--no-concurrent-osr',
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
    ],
    {
      env: { ...process.env, [PROBE_ENV]: `${kind}:${signal}:${wakeup}` },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  assert.equal(r.status, 0, `probe failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as ProbeResult;
}

const probeArg = process.env[PROBE_ENV];
if (probeArg) {
  const [kind, signal, wakeup] = probeArg.split(':') as [PcmKind, SignalKind, WakeupMode];
  process.stdout.write(JSON.stringify(probe(kind, signal, wakeup)));
} else {
  for (const [kind, signal, wakeup] of [
    ['mock', 'silence', 'period'],
    ['mock', 'sine', 'period'],
    ['null', 'silence', 'period'],
    ['null', 'sine', 'period'],
    // --wakeup timer: snd_pcm_delay and the clock sleep instead of snd_pcm_wait.
    ['mock', 'silence', 'timer'],
    ['null', 'silence', 'timer'],
  ] as const) {
    const pcmName = kind === 'mock' ? 'the MOCK PCM' : "libasound's null PCM (real koffi calls)";
    const mode = wakeup === 'timer' ? ' in timer mode' : '';
    test(`a period of ${signal} on ${pcmName}${mode} allocates nothing on the heap`, () => {
      const r = runProbe(kind, signal, wakeup);
      assert.ok(
        r.bytesPerPeriod < MAX_BYTES_PER_PERIOD,
        `${r.bytesPerPeriod.toFixed(2)} bytes allocated per period (limit ${MAX_BYTES_PER_PERIOD}): ` +
          `bytes in windows of ${WINDOW_PERIODS} periods: ${r.windowBytes.join(', ')}`,
      );
    });
  }
}
