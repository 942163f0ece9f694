// Real flight recorder breakdowns for tests (not used at run time): the lab captures of
// test/fixtures/recorder/ run through the recorder's own breakdown code, and the format 2 bundle
// fixture built from them (test/fixtures/bundles-format-2/session-v2-breakdown.json; described in test/fixtures/bundles/README.md).
import { readFileSync } from 'node:fs';
import { breakdownLookbackSeconds, breakdownXrun } from '../recorder/breakdown.js';
import type { StreamTiming, XrunBreakdown } from '../recorder/breakdown-types.js';
import { summarizeBreakdowns } from '../recorder/breakdown-summary.js';
import type { RecorderExplanation } from '../recorder/explain-windows.js';
import { parseTraceText } from '../recorder/trace-line.js';
import { toBundleBreakdown, toBundleDetection, toBundleRunBreakdown } from './carry-breakdown.js';
import type { Bundle } from './schema.js';
import { fixtureJson } from './test-fixtures.js';
import { validateBundle } from './validate.js';

const DIR = new URL('../../test/fixtures/recorder/', import.meta.url);
// aplay --period-size=64 --buffer-size=128 at 48 kHz (the captures' stream).
const TIMING: StreamTiming = { periodSeconds: 64 / 48000, bufferSeconds: 128 / 48000 };

/** The breakdown of the XRUN at trace time `ts` in a recorder fixture file. */
export function recorderBreakdown(file: string, ts: number): XrunBreakdown {
  const { events } = parseTraceText(readFileSync(new URL(file, DIR), 'utf8'));
  const hit = events.find((e) => e.name === 'xrun' && e.ts === ts);
  if (!hit) throw new Error(`${file} has no XRUN at ${ts}`);
  const t0 = ts - breakdownLookbackSeconds(TIMING);
  const before = events.filter((e) => e.ts >= t0 && e.ts <= ts && e !== hit);
  return breakdownXrun(before, hit, TIMING, { windowStart: t0 });
}

/** blocked-by-task (cat, dd before aplay), irq-latency (test_lockup), process detection, softirq. */
export const FIXTURE_BREAKDOWNS = [
  ['threadirqs-irq-writer-blocked.txt', 8.572607],
  ['threadirqs-irq-lockup-irqstack.txt', 10.115265],
  ['rt-process-detection.txt', 8.750127],
  ['dummy-softirq-timer-late.txt', 7.075998],
] as const;

/** The four fixture breakdowns and their summary, as a recorder run would explain them. */
export function fixtureExplanation(): RecorderExplanation {
  const breakdowns = FIXTURE_BREAKDOWNS.map(([f, ts]) => recorderBreakdown(f, ts));
  return { breakdowns, summary: summarizeBreakdowns(breakdowns), unreadable: 0 };
}

/**
 * session-ext4-writeback.json made format 2: events 1–3 carry the first three breakdowns,
 * event 3 is a detector-only XRUN detected in process context, the fourth breakdown is unmatched.
 */
export function buildV2Fixture(): Bundle {
  const b = validateBundle(fixtureJson('session-ext4-writeback.json'));
  const x = fixtureExplanation();
  const matched = [null, 0, 1, 2];
  b.events.forEach((e, i) => {
    const m = matched[i];
    if (m !== null && m !== undefined) e.breakdown = toBundleBreakdown(x.breakdowns[m]!);
  });
  const last = b.events[3]!;
  last.offender = { class: 'detector-only', function: null, module: null, signature: null };
  last.detection = toBundleDetection({
    context: 'process',
    task: { comm: 'pipewire', pid: 1234 },
    via: 'snd_pcm_common_ioctl',
    evidence: 'stack',
  });
  b.events[1]!.detection = toBundleDetection({ context: 'hardirq', evidence: 'stack' });
  b.breakdown = toBundleRunBreakdown(x, matched);
  return validateBundle(JSON.parse(JSON.stringify(b)) as unknown);
}
