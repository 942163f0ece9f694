// Per-period measurements (headroom, write-call time) in HDR histograms: constant memory,
// 3 significant digits, exact extremes — what a p99.9 of a 10-minute run needs.
// The builder alone, not the package's index: the index loads HistogramLogWriter, whose module
// start builds an Intl.NumberFormat (260 ms in the lab's emulated guest), in the playback worker
// before the first period is written.
import { build } from 'hdr-histogram-js/dist/HistogramBuilder.js';
import type * as hdr from 'hdr-histogram-js';

export interface HistogramSummary {
  count: number;
  min: number | null;
  p50: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
  mean: number | null;
}

export type Histogram = hdr.Histogram;

/** A histogram for microsecond values (1 µs … 1 h); values are rounded to whole µs. */
export function createUsHistogram(): Histogram {
  return build({
    bitBucketSize: 32,
    autoResize: true,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

/** Reduces a histogram to the figures reports show; an empty one gives nulls, not zeros. */
export function summarizeHistogram(h: Histogram): HistogramSummary {
  if (h.totalCount === 0) {
    return { count: 0, min: null, p50: null, p99: null, p999: null, max: null, mean: null };
  }
  return {
    count: h.totalCount,
    // minNonZeroValue skips zeros; percentile 0 is the lowest recorded value, zeros included.
    min: h.getValueAtPercentile(0),
    p50: h.getValueAtPercentile(50),
    p99: h.getValueAtPercentile(99),
    p999: h.getValueAtPercentile(99.9),
    max: h.maxValue,
    mean: Math.round(h.mean * 10) / 10,
  };
}
