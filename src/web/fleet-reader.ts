// What the read-only web view asks of a fleet store, as plain data: no SQL, no driver types.
// One interface so the same pages run over the embedded SQLite store
// (sqlite-fleet-reader.ts) and the shared PostgreSQL store. Every method is async because
// the PostgreSQL one is; the SQLite one answers synchronously inside.
//
// Counting rules every implementation keeps (the Chromium tests compare pages with them):
// - A filter narrows BUNDLES by kernel release, preemption model, card, capture backend and
//   time range (bundle createdAt, `sinceMs` inclusive, `untilMs` exclusive); `driver` and
//   `card` narrow EVENTS to those raised by a card with that driver/name, and bundles to
//   those having such a card. Each list is "any of"; an empty or absent list is no filter.
// - `offenderClasses` narrows events by offender class; absent means ['kernel'] for the
//   ranking, the signature page and the trend (only kernel code is ranked as something to
//   fix), and every class for the totals' class breakdown.
// - Denominators (bundles, machines, playback hours) are those of the bundles the filter
//   keeps; "per machine-hour" is incidents / playback hours of those bundles.
// - Machines are distinct anonymous machine ids.
import type { BundleOffenderClass } from '../bundle/schema.js';
import type { BundleBreakdownClass } from '../bundle/schema-breakdown.js';

/** The filters of every fleet query (the web view's query string, parsed). */
export interface FleetFilter {
  kernelReleases?: readonly string[];
  preempts?: readonly string[];
  drivers?: readonly string[];
  /** Card names as in the bundle's host.cards[].name (e.g. "HDA Intel PCH"). */
  cards?: readonly string[];
  /** Bundle params.captureBackend ('xrun_debug', 'kprobe', ...; 'none' without params). */
  captureBackends?: readonly string[];
  offenderClasses?: readonly BundleOffenderClass[];
  /**
   * Flight recorder breakdown classes (bundle format 2: blocked-by-task, irq-latency, …): only
   * events whose breakdown has one of them. With it and no offenderClasses, every offender class.
   */
  breakdownClasses?: readonly BundleBreakdownClass[];
  /** Bundles created at or after this instant (ms since the epoch). */
  sinceMs?: number | null;
  /** Bundles created before this instant (ms since the epoch). */
  untilMs?: number | null;
}

/** A value and how often it occurs (bundles for filter values, incidents elsewhere). */
export interface ValueCount {
  value: string;
  count: number;
}

/** Which filter values the store holds, for the filter controls. Counts are bundles. */
export interface FilterValues {
  kernelReleases: ValueCount[];
  preempts: ValueCount[];
  drivers: ValueCount[];
  cards: ValueCount[];
  captureBackends: ValueCount[];
  /** Counts are kernel events of that class. */
  offenderClasses: ValueCount[];
  /** Counts are kernel events whose flight recorder breakdown has that class. */
  breakdownClasses: ValueCount[];
  /** createdAt of the oldest and newest bundle, null for an empty store. */
  timeRange: { firstMs: number; lastMs: number } | null;
}

/** The denominators and class split of the bundles a filter keeps. */
export interface FleetTotals {
  bundles: number;
  machines: number;
  playbackHours: number;
  /** Kernel events by offender class (after the driver/card filter, before the class filter). */
  classes: Record<BundleOffenderClass, number>;
}

/** One ranked offender: a kernel signature, or one row per non-kernel class. */
export interface OffenderRow {
  class: BundleOffenderClass;
  /** The offender signature; null for the idle/user/none rows. */
  signature: string | null;
  function: string | null;
  module: string | null;
  incidents: number;
  machines: number;
  /** incidents / playback hours of the filtered bundles. */
  perMachineHour: number;
  /** incidents / all incidents of the selected classes (0..1). */
  share: number;
  firstSeenMs: number;
  lastSeenMs: number;
}

export interface RankingQuery {
  filter: FleetFilter;
  /** Rows returned (default 50); the rest are counted in `more`. */
  limit?: number;
}

/** The fleet page: totals and offenders, most incidents first (then machines, signature). */
export interface FleetRankingResult {
  totals: FleetTotals;
  rows: OffenderRow[];
  /** Rows left out by `limit`. */
  more: number;
}

/** One distinct stack and how many incidents it was, frames innermost first. */
export interface StackCount {
  frames: string[];
  count: number;
}

/** One kernel release's numbers for one signature (or the fleet), in release order. */
export interface KernelPoint {
  release: string;
  /** Filtered bundles on this release (the denominator). */
  bundles: number;
  /** Machines with filtered bundles on this release. */
  machines: number;
  playbackHours: number;
  incidents: number;
  /** Machines with at least one of these incidents on this release. */
  affectedMachines: number;
  /** incidents / playbackHours, 0 without playback. */
  perMachineHour: number;
  /** Null when there were no incidents on this release. */
  firstSeenMs: number | null;
  lastSeenMs: number | null;
}

/** Everything the signature page shows. */
export interface SignatureDetail {
  signature: string;
  function: string | null;
  module: string | null;
  incidents: number;
  machines: number;
  perMachineHour: number;
  firstSeenMs: number;
  lastSeenMs: number;
  /** The filtered fleet's releases in kernel version order (compareKernelReleases). */
  kernels: KernelPoint[];
  /** The first release (version order) where it occurs. */
  appearsIn: string | null;
  /**
   * The first release after the last one where it occurs that has bundles but no incidents
   * of it (the release where it seems fixed), null if it still occurs on the newest.
   */
  disappearsIn: string | null;
  /** Distinct stacks of its incidents, most incidents first (at most `stackLimit`). */
  stacks: StackCount[];
  drivers: ValueCount[];
  cards: ValueCount[];
  preempts: ValueCount[];
  loads: ValueCount[];
  captureBackends: ValueCount[];
  /** Its incidents by flight recorder breakdown class (only those that had a breakdown). */
  breakdownClasses: ValueCount[];
}

export interface SignatureQuery {
  signature: string;
  filter: FleetFilter;
  /** Distinct stacks returned (default 20). */
  stackLimit?: number;
}

export interface TrendQuery {
  filter: FleetFilter;
  /** The top signatures (by incidents under the filter) given a series each (default 8). */
  top?: number;
}

/** Incidents per machine-hour across kernel releases: the fleet and its top signatures. */
export interface KernelTrend {
  /** Releases in kernel version order. */
  releases: string[];
  /** The fleet (all incidents of the selected classes), one point per release. */
  fleet: KernelPoint[];
  series: { signature: string; points: KernelPoint[] }[];
}

export interface FlameQuery {
  filter: FleetFilter;
  /** Only this signature's stacks; absent = every stack of the selected classes. */
  signature?: string | null;
  /** Distinct stacks returned, most incidents first (default 2000); the rest summed in `otherCount`. */
  limit?: number;
}

/** Aggregated offender stacks, the input of the flame graph. */
export interface FlameStacks {
  stacks: StackCount[];
  /** Incidents whose stacks were left out by `limit`. */
  otherCount: number;
  total: number;
}

/**
 * The read side of a fleet store the web view needs. Exists so the pages and the JSON API
 * do not know which database is behind them.
 */
export interface FleetReader {
  /** The values present, for the filter controls. */
  filterValues(): Promise<FilterValues>;
  /** The fleet ranking under a filter. */
  ranking(query: RankingQuery): Promise<FleetRankingResult>;
  /** One signature's page; null when it has no incidents under the filter. */
  signature(query: SignatureQuery): Promise<SignatureDetail | null>;
  /** The trend across kernel releases. */
  trend(query: TrendQuery): Promise<KernelTrend>;
  /** Aggregated stacks for the flame graph. */
  flame(query: FlameQuery): Promise<FlameStacks>;
  /** Releases the connection; idempotent. */
  close(): Promise<void>;
}
