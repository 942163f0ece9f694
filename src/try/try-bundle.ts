// A `try` run as a bundle of kind `try` (format 1 plus the optional `try` section): the knobs,
// the A/B rates per phase and the verdict, with the host and the session plan, so `compare`
// and the HTML report can read it later and a kernel developer sees the remedy's effect.
// Phases carry one entry per arm and phase ("A write", "B write") with the summed xruns.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RULES_VERSION } from '../analysis/index.js';
import {
  FORMAT_VERSION,
  scrubBundle,
  scrubText,
  writeBundle,
  type Bundle,
  type BundleHost,
  type BundleTryRate,
  type ScrubKnown,
} from '../bundle/index.js';
import type { SessionParams } from '../session/events.js';
import type { RateRatio } from '../stats/rate-ratio.js';
import type { TryResult } from './try-result.js';
import { renderTryText } from './try-text.js';

/** A rate as the bundle stores it (JSON has no Infinity: an unbounded interval is null). */
export function bundleRate(r: RateRatio): BundleTryRate {
  return {
    a: { count: r.a.count, minutes: r.a.minutes },
    b: { count: r.b.count, minutes: r.b.minutes },
    ratio: r.ratio !== null && Number.isFinite(r.ratio) ? r.ratio : null,
    low: r.low,
    high: Number.isFinite(r.high) ? r.high : null,
    p: r.p,
    significant: r.significant,
  };
}

export interface TryBundleInput {
  host: BundleHost;
  machineId: string;
  toolVersion: string;
  params: SessionParams;
  createdAt?: string;
}

/** Maps a try result to a bundle (pure). */
export function tryToBundle(r: TryResult, o: TryBundleInput): Bundle {
  const p = o.params;
  const durationMs = r.sessions.reduce((s, x) => s + x.durationMs, 0);
  let t = 0;
  const phases: Bundle['phases'] = r.phases.flatMap((ph) =>
    (['a', 'b'] as const).map((arm) => {
      const ms = ph.rate[arm].minutes * 60_000;
      const entry = {
        name: `${arm.toUpperCase()} ${ph.name}`,
        kind: ph.name,
        startMs: t,
        endMs: t + ms,
        throughput: null,
        xruns: ph.rate[arm].count,
      };
      t += ms;
      return entry;
    }),
  );
  return {
    formatVersion: FORMAT_VERSION,
    tool: { name: 'xrunhunt', version: o.toolVersion },
    kind: 'try',
    createdAt: o.createdAt ?? new Date().toISOString(),
    machineId: o.machineId,
    scrubbed: false,
    host: o.host,
    params: {
      device: p.device,
      rateHz: p.rateHz,
      channels: 2,
      format: 'S16_LE',
      periodFrames: p.periodFrames,
      bufferFrames: p.periodFrames * p.periods,
      rtPolicy: p.rtPriority === null ? 'SCHED_OTHER' : 'SCHED_FIFO',
      rtPriority: p.rtPriority,
      mask: p.mask,
      phases: p.phasePlan,
      captureBackend: 'none',
    },
    durationMs,
    // The sessions' playback is not counted again in fleet rates: a try bundle is a comparison.
    playbackMs: 0,
    phases,
    xruns: [],
    kernelCapture: { source: 'none', lostMessages: 0 },
    events: [],
    offenders: [],
    histograms: null,
    rulesVersion: RULES_VERSION,
    warnings: [],
    try: {
      knobs: r.knobs,
      rounds: r.rounds,
      phases: r.phases.map((ph) => ({ name: ph.name, ...bundleRate(ph.rate) })),
      total: r.total ? bundleRate(r.total) : null,
      topOffender: r.topOffender
        ? {
            name: r.topOffender.name,
            a: r.topOffender.a,
            b: r.topOffender.b,
            rate: bundleRate(r.topOffender.rate),
          }
        : null,
      verdict: r.verdict,
    },
  };
}

/** Writes DIR/bundle.json.gz and DIR/report.txt, scrubbed unless `scrub` is null; returns the bundle path. */
export async function writeTryBundle(
  dir: string,
  r: TryResult,
  o: TryBundleInput,
  scrub: ScrubKnown | null,
): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'bundle.json.gz');
  const bundle = tryToBundle(r, o);
  await writeBundle(path, scrub ? scrubBundle(bundle, scrub) : bundle);
  const text = renderTryText(r);
  writeFileSync(join(dir, 'report.txt'), scrub ? scrubText(text, scrub) : text);
  return path;
}
